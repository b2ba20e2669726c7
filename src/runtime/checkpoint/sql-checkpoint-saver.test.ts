import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { type BaseMessage, HumanMessage } from '@langchain/core/messages';
import type { CheckpointMetadata, CheckpointTuple } from '@langchain/langgraph';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CtxloomError } from '../../core/errors.ts';
import { createCheckpointSessionStore } from '../../session/checkpoint-session-store.ts';
import { type CheckpointTables, checkpointTables } from './checkpoint-schema.ts';
import { createPostgresDriver } from './postgres-driver.ts';
import { PostgresSaver } from './postgres-saver.ts';
import { chat, count, sqliteRecordFormats } from './saver-scenarios.test-support.ts';
import { SqlCheckpointSaver } from './sql-checkpoint-saver.ts';
import { type SqlDriver, type SqlParam, type SqlRow, toPostgresPlaceholders } from './sql-driver.ts';
import type { SnapshotStorage } from './sql-saver-options.ts';
import { createSqliteDriver } from './sqlite-driver.ts';
import { SqliteSaver } from './sqlite-saver.ts';
import { nameRowsQuery } from './thread-keys.ts';

const url = inject('pgUrl');
const schema = `ctxloom_saver_${process.pid}_${Date.now().toString(36)}`;
const pool = new pg.Pool({ connectionString: url, max: 4 });
const directory = mkdtempSync(join(tmpdir(), 'ctxloom-saver-'));

beforeAll(async () => {
  await pool.query(`CREATE SCHEMA "${schema}"`);
});
afterAll(async () => {
  await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await pool.end();
  rmSync(directory, { recursive: true, force: true });
});

type SizedSaver = SqlCheckpointSaver & { sizeBytes(): Promise<number> };

/** Record bytes (data + writes, name row included) of every namespace of `threadId`, `?` placeholders. */
function payloadQuery(tables: CheckpointTables, threadId: string): { sql: string; params: SqlParam[] } {
  const keys = nameRowsQuery(tables, { threadId });
  return {
    sql: `SELECT SUM(COALESCE(LENGTH(data), 0) + COALESCE(LENGTH(writes), 0)) AS bytes
   FROM ${tables.checkpoints} WHERE thread IN (${keys.sql})`,
    params: keys.params,
  };
}

const kinds: {
  name: string;
  open: (name: string, options?: { snapshots?: SnapshotStorage }) => SizedSaver;
  /** Checkpoint rows of the saver `name` stored self-contained (depth 0, the version and name rows left out). */
  selfContainedRows: (name: string) => Promise<number>;
  /** Bytes of the records stored for one thread (data + writes columns), no page or index overhead. */
  payloadBytes: (name: string, threadId: string) => Promise<number>;
  /** Checkpoint records of the saver `name` by their format number (the record's first byte). */
  recordFormats: (name: string) => Promise<Record<number, number>>;
}[] = [
  {
    name: 'SqliteSaver',
    open: (name, options = {}) =>
      new SqliteSaver({ path: join(directory, `${name}.db`), durability: 'normal', ...options }),
    payloadBytes: async (name, threadId) =>
      readSqlite(name, (database) => {
        const query = payloadQuery(checkpointTables({ prefix: 'ctxloom_cp_' }), threadId);
        return Number((database.prepare(query.sql).get(...query.params) as { bytes: number }).bytes);
      }),
    selfContainedRows: async (name) =>
      readSqlite(name, (database) =>
        Number(
          (database.prepare(SELF_CONTAINED_SQL('ctxloom_cp_checkpoints')).get() as { rows: number }).rows,
        ),
      ),
    recordFormats: async (name) => sqliteRecordFormats(join(directory, `${name}.db`)),
  },
  {
    name: 'PostgresSaver',
    open: (name, options = {}) => new PostgresSaver({ pool, schema, prefix: `${name}_`, ...options }),
    payloadBytes: async (name, threadId) => {
      const query = payloadQuery(checkpointTables({ schema, prefix: `${name}_` }), threadId);
      const result = await pool.query(toPostgresPlaceholders(query.sql), [...query.params]);
      return Number(result.rows[0]?.bytes ?? 0);
    },
    selfContainedRows: async (name) => {
      const tables = checkpointTables({ schema, prefix: `${name}_` });
      const result = await pool.query(SELF_CONTAINED_SQL(tables.checkpoints));
      return Number(result.rows[0]?.rows ?? 0);
    },
    recordFormats: async (name) => {
      const tables = checkpointTables({ schema, prefix: `${name}_` });
      const result = await pool.query(
        `SELECT get_byte(data, 0) AS format, COUNT(*) AS n FROM ${tables.checkpoints} WHERE thread >= 0 AND data IS NOT NULL GROUP BY 1`,
      );
      return Object.fromEntries(result.rows.map((row) => [Number(row.format), Number(row.n)]));
    },
  },
];

/** Runs `read` on the SQLite saver file `name`, opened read-only. */
function readSqlite<T>(name: string, read: (database: DatabaseSync) => T): T {
  const database = new DatabaseSync(join(directory, `${name}.db`), { readOnly: true });
  try {
    return read(database);
  } finally {
    database.close();
  }
}

/** Counts rows with a record stored self-contained (`depth` 0) in a checkpoints table. */
const SELF_CONTAINED_SQL = (table: string) =>
  `SELECT COUNT(*) AS rows FROM ${table} WHERE depth = 0 AND thread >= 0 AND data IS NOT NULL`;

describe.each(kinds)('$name', ({ open, payloadBytes, selfContainedRows, recordFormats }) => {
  it('restores a graph in a new saver instance with every message once', async () => {
    const first = open('restore');
    await chat(first, 'restore', 6);
    await first.close();
    const second = open('restore');
    const { app, config } = await chat(second, 'restore', 1, { firstTurn: 6 });
    const state = await app.getState(config);
    const ids = (state.values.messages as BaseMessage[]).map((message) => message.id);
    expect(ids).toHaveLength(14);
    expect(new Set(ids).size).toBe(14);
    expect(state.values.turns).toBe(7);
    await second.close();
  });

  it('grows stored bytes linearly with the turns of a conversation', async () => {
    const saver = open('linear');
    await chat(saver, 'linear-a', 10);
    await chat(saver, 'linear-b', 40);
    await saver.close();
    // Stored record bytes, not relation size: pages, indexes and dead row versions (which
    // PostgreSQL reclaims whenever pruning runs) make the latter a noisy measure of growth.
    // 4× the turns costs ~4× on a linear store; a store of every message at every step ~16×.
    const ratio = (await payloadBytes('linear', 'linear-b')) / (await payloadBytes('linear', 'linear-a'));
    expect(ratio).toBeGreaterThan(3);
    expect(ratio).toBeLessThan(6);
  });

  it('with snapshots: reference, stores a snapshot as a reference to the writes it summarises, not a copy of them', async () => {
    const saver = open('reference', { snapshots: 'reference' });
    // Snapshots every 40 updates (2 a turn) against none: each copies 20 turns of messages, far
    // beyond the chain's 32 KiB dictionary; a reference costs a few bytes.
    await chat(saver, 'reference-a', 60, { snapshotFrequency: 40 });
    await chat(saver, 'reference-b', 60);
    const hot = await chat(saver, 'reference-a', 1, { snapshotFrequency: 40, firstTurn: 60 });
    const expected = await hot.app.getState(hot.config);
    await saver.close();
    const ratio =
      (await payloadBytes('reference', 'reference-a')) / (await payloadBytes('reference', 'reference-b'));
    expect(ratio).toBeLessThan(1.08);
    // A fresh saver replays the writes behind each reference, back to the first whole snapshot.
    const fresh = open('reference', { snapshots: 'reference' });
    const cold = await chat(fresh, 'reference-a', 0, { snapshotFrequency: 40 });
    const state = await cold.app.getState(cold.config);
    expect(state.values).toEqual(expected.values);
    expect(state.values.messages).toHaveLength(122);
    await fresh.close();
  });

  it('stores each snapshot in a self-contained row, read on its own by a cold load', async () => {
    const saver = open('snapshotrows');
    // A snapshot of `messages` every 8 updates (2 a turn): 9 in 40 turns; without them a
    // chain restarts only every 128 rows.
    await chat(saver, 'snapshotrows-a', 40, { snapshotFrequency: 8 });
    const hot = await chat(saver, 'snapshotrows-a', 0, { snapshotFrequency: 8 });
    const expected = await hot.app.getState(hot.config);
    await saver.close();
    const fresh = open('snapshotrows');
    const cold = await chat(fresh, 'snapshotrows-a', 0, { snapshotFrequency: 8 });
    expect((await cold.app.getState(cold.config)).values).toEqual(expected.values);
    await fresh.close();
    const selfContained = await selfContainedRows('snapshotrows');
    expect(selfContained).toBeGreaterThanOrEqual(10);
  });

  it('stores a large snapshot with Brotli (format 4), chained records in format 5, the rest in format 3', async () => {
    const saver = open('brotli');
    // One snapshot of 120 messages of ~1.2 KB: a body well above the 16 KiB threshold.
    await chat(saver, 'brotli-a', 61, { snapshotFrequency: 120 });
    const hot = await chat(saver, 'brotli-a', 0, { snapshotFrequency: 120 });
    const expected = await hot.app.getState(hot.config);
    await saver.close();
    const formats = await recordFormats('brotli');
    expect(formats[4]).toBe(1);
    expect(Object.keys(formats).sort()).toEqual(['3', '4', '5']);
    const fresh = open('brotli');
    const cold = await chat(fresh, 'brotli-a', 0, { snapshotFrequency: 120 });
    expect((await cold.app.getState(cold.config)).values).toEqual(expected.values);
    await fresh.close();
  });

  it('keeps a stored write as it was when its task writes again under another path after a child exists', async () => {
    const saver = open('latepath');
    const { app, config } = await chat(saver, 'latepath', 4);
    const before: CheckpointTuple[] = [];
    for await (const tuple of saver.list(config)) before.push(tuple);
    const old = before.slice(3).find((tuple) => (tuple.pendingWrites?.length ?? 0) > 0);
    const [taskId] = old?.pendingWrites?.[0] ?? [];
    if (old === undefined || taskId === undefined) throw new Error('no old checkpoint with writes');
    // The task's indexes so far exist (ignored, as MemorySaver does); the next is new, under
    // another path. Its child's history holds the task's writes as stored: they must not change.
    const stored = (old.pendingWrites ?? []).filter(([task]) => task === taskId).length;
    const writes: [string, unknown][] = Array.from({ length: stored }, () => ['messages', []]);
    await saver.putWrites(old.config, [...writes, ['late', 'value']], taskId, 'another~path');
    const hot = await app.getState(config);
    await saver.close();
    const fresh = open('latepath');
    const after: CheckpointTuple[] = [];
    for await (const tuple of fresh.list(config)) after.push(tuple);
    expect(after.map((tuple) => tuple.checkpoint)).toEqual(before.map((tuple) => tuple.checkpoint));
    const late = after.find((tuple) => tuple.checkpoint.id === old.checkpoint.id);
    // Pending writes come sorted by task path: the late one, under its own path, among them.
    expect(late?.pendingWrites).toHaveLength((old.pendingWrites?.length ?? 0) + 1);
    expect(late?.pendingWrites).toEqual(
      expect.arrayContaining([...(old.pendingWrites ?? []), [taskId, 'late', 'value']]),
    );
    const cold = await chat(fresh, 'latepath', 0);
    expect((await cold.app.getState(cold.config)).values).toEqual(hot.values);
    await fresh.close();
  });

  it('re-encodes the checkpoints chained to one that is put again with another record', async () => {
    const saver = open('reput');
    const { config } = await chat(saver, 'reput', 3);
    const before: CheckpointTuple[] = [];
    for await (const tuple of saver.list(config)) before.push(tuple);
    const first = before.at(-1) as CheckpointTuple;
    const parent = { configurable: { thread_id: 'reput', checkpoint_ns: '' } };
    await saver.put(parent, first.checkpoint, { ...first.metadata, step: 99 } as CheckpointMetadata, {});
    await saver.close();
    // A fresh saver (no cache) decodes every descendant against the new record.
    const reopened = open('reput');
    const after: CheckpointTuple[] = [];
    for await (const tuple of reopened.list(config)) after.push(tuple);
    expect(after.map((tuple) => tuple.checkpoint)).toEqual(before.map((tuple) => tuple.checkpoint));
    expect(after.map((tuple) => tuple.pendingWrites)).toEqual(before.map((tuple) => tuple.pendingWrites));
    expect(after.at(-1)?.metadata?.step).toBe(99);
    expect(after.slice(0, -1).map((tuple) => tuple.metadata)).toEqual(
      before.slice(0, -1).map((tuple) => tuple.metadata),
    );
    await reopened.close();
  });

  it('prunes old checkpoints, keeps the state, and keeps the thread usable', async () => {
    const saver = open('prune');
    const { app, config } = await chat(saver, 'prune', 12, { snapshotFrequency: 4 });
    const before = await app.getState(config);
    const countBefore = await count(saver, 'prune');
    const result = await saver.prune({ keepLast: 3 });
    expect(result.deletedCheckpoints).toBeGreaterThan(0);
    expect(await count(saver, 'prune')).toBe(countBefore - result.deletedCheckpoints);
    const after = await app.getState(config);
    expect(after.values).toEqual(before.values);
    // Every kept checkpoint and its pending writes still decode (re-encoded ones included).
    for await (const tuple of saver.list({ configurable: { thread_id: 'prune' } })) {
      expect(Array.isArray(tuple.pendingWrites)).toBe(true);
    }
    await app.invoke({ messages: [new HumanMessage({ content: 'again', id: 'human-again' })] }, config);
    const continued = await app.getState(config);
    expect((continued.values.messages as BaseMessage[]).length).toBe(26);
    await saver.close();
  });

  it('refuses a keepLast below one', async () => {
    const saver = open('refuse');
    await expect(saver.prune({ keepLast: 0 })).rejects.toMatchObject({ code: 'invalid-argument' });
    await saver.close();
  });
});

/** Bare drivers: SQLite in memory, PostgreSQL on the shared pool and this file's schema. */
const drivers: { name: string; open: () => { driver: SqlDriver; schema?: string } }[] = [
  { name: 'SQLite', open: () => ({ driver: createSqliteDriver({ path: ':memory:' }) }) },
  { name: 'PostgreSQL', open: () => ({ driver: createPostgresDriver({ pool }), schema }) },
];

describe('SqlCheckpointSaver.put', () => {
  /** Counts the statements and rows a driver serves inside `reads.count(work)` — that call only. */
  function counted(driver: SqlDriver) {
    const scope = new AsyncLocalStorage<{ statements: number; rows: number }>();
    const tally = (rows: SqlRow[]) => {
      const store = scope.getStore();
      if (store !== undefined) {
        store.statements += 1;
        store.rows += rows.length;
      }
      return rows;
    };
    const wrapped: SqlDriver = {
      ...driver,
      all: async (sql, params) => tally(await driver.all(sql, params)),
      transaction: (work) =>
        driver.transaction((executor) =>
          work({ run: executor.run, all: async (sql, params) => tally(await executor.all(sql, params)) }),
        ),
    };
    const reads = { statements: 0, rows: 0 };
    const count = <T>(work: () => Promise<T>): Promise<T> => {
      const store = { statements: 0, rows: 0 };
      return scope.run(store, async () => {
        try {
          return await work();
        } finally {
          reads.statements += store.statements;
          reads.rows += store.rows;
        }
      });
    };
    return { driver: wrapped, reads, count };
  }

  for (const kind of drivers) {
    it(`reads as much at turn 60 as at turn 5 (${kind.name}): no work grows with the history`, async () => {
      const { driver: raw, schema: pgSchema } = kind.open();
      const { driver, reads, count } = counted(raw);
      const saver = new SqlCheckpointSaver({
        driver,
        tables: checkpointTables({
          prefix: 'bounded_',
          ...(pgSchema === undefined ? {} : { schema: pgSchema }),
        }),
        ...(pgSchema === undefined ? {} : { schema: pgSchema }),
      });
      const put = saver.put.bind(saver);
      saver.put = (...args) => count(() => put(...args));
      const perTurn = async (turns: number, firstTurn: number) => {
        await chat(saver, 'bounded', turns - 1, { firstTurn });
        const before = { ...reads };
        await chat(saver, 'bounded', 1, { firstTurn: firstTurn + turns - 1 });
        return { statements: reads.statements - before.statements, rows: reads.rows - before.rows };
      };
      const early = await perTurn(5, 0);
      const late = await perTurn(55, 5);
      expect(early.statements).toBeGreaterThan(0);
      // Same reads 55 turns later. On PostgreSQL each of a turn's 4 puts may find its row
      // already holding writes saved first (LangGraph does not await a put before saving its
      // tasks' writes) and read it once more, locked — a race, not history.
      const postgres = kind.name === 'PostgreSQL';
      expect(Math.abs(late.statements - early.statements)).toBeLessThanOrEqual(postgres ? 4 : 0);
      expect(Math.abs(late.rows - early.rows)).toBeLessThanOrEqual(postgres ? 8 : 0);
      await saver.close();
    });
  }
});

describe('PostgresSaver', () => {
  it('serves several server processes on one database: each sees the threads the others wrote', async () => {
    // Two pools stand in for two server processes.
    const other = new pg.Pool({ connectionString: url, max: 2 });
    const first = new PostgresSaver({ pool, schema, prefix: 'shared_' });
    const second = new PostgresSaver({ pool: other, schema, prefix: 'shared_' });
    await Promise.all([chat(first, 'from-first', 3), chat(second, 'from-second', 3)]);
    const fromFirst = await chat(second, 'from-first', 1, { firstTurn: 3 });
    const state = await fromFirst.app.getState(fromFirst.config);
    expect((state.values.messages as BaseMessage[]).map((message) => message.id)).toHaveLength(8);
    expect(await count(first, 'from-second')).toBe(await count(second, 'from-second'));
    await other.end();
  });

  it('a write the database refuses (disk full) is a typed storage-error; nothing of it is stored', async () => {
    const saver = new PostgresSaver({ pool, schema, prefix: 'full_' });
    const store = createCheckpointSessionStore({ saver, kind: 'postgres' });
    await store.appendMessages('s1', [{ id: 'u1', role: 'user', content: 'kept' }]);
    // What PostgreSQL answers when it cannot extend a file: SQLSTATE 53100 (disk_full).
    await pool.query(
      `CREATE FUNCTION "${schema}".full_refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'could not extend file: No space left on device' USING ERRCODE = '53100'; END $$`,
    );
    await pool.query(
      `CREATE TRIGGER full_refuse BEFORE INSERT OR UPDATE ON "${schema}".full_checkpoints FOR EACH ROW EXECUTE FUNCTION "${schema}".full_refuse()`,
    );
    const message = { id: 'u2', role: 'user' as const, content: 'refused, then stored' };
    const error = await store.appendMessages('s1', [message]).catch((caught: unknown) => caught);
    await pool.query(`DROP TRIGGER full_refuse ON "${schema}".full_checkpoints`);
    expect(CtxloomError.is(error, 'storage-error'), String(error)).toBe(true);
    expect((error as Error).message).toContain('No space left on device');
    expect((await store.load('s1')).messages.map((stored) => stored.id)).toEqual(['u1']);
    await store.appendMessages('s1', [message]);
    expect((await store.load('s1')).messages.map((stored) => stored.id)).toEqual(['u1', 'u2']);
  });

  it('says in words why it could not set up: no such database, nothing listening', async () => {
    const missing = new URL(url);
    missing.pathname = `/ctxloom_missing_${process.pid}`;
    const closed = new URL(url);
    closed.port = '1'; // nothing listens on port 1
    for (const [target, reason] of [
      [missing.href, 'the database does not exist'],
      [closed.href, 'refused the connection'],
    ] as const) {
      const saver = PostgresSaver.fromConnString(target);
      try {
        const error = await saver.setup().catch((caught: unknown) => caught);
        expect(CtxloomError.is(error, 'storage-error'), String(error)).toBe(true);
        expect((error as Error).message).toMatch(/^checkpoint schema setup failed: /u);
        expect((error as Error).message).toContain(reason);
      } finally {
        await saver.close();
      }
    }
  });
});

describe('SqliteSaver', () => {
  it.each([
    [
      '1',
      "CREATE TABLE ctxloom_cp_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL); INSERT INTO ctxloom_cp_meta VALUES ('schema_version', '1')",
    ],
    [
      '2',
      'CREATE TABLE ctxloom_cp_meta (schema_version INTEGER NOT NULL); INSERT INTO ctxloom_cp_meta VALUES (2)',
    ],
  ])('refuses tables of layout %s with an error naming the layout and the table', async (version, sql) => {
    const path = join(directory, `layout-${version}.db`);
    const old = new DatabaseSync(path);
    old.exec(sql);
    old.close();
    const saver = new SqliteSaver({ path });
    await expect(saver.setup()).rejects.toMatchObject({
      code: 'storage-error',
      message: expect.stringContaining(`layout version ${version}; this ctxloom reads layout 3`),
      path: 'ctxloom_cp_meta',
    });
    await expect(saver.getTuple({ configurable: { thread_id: 'any' } })).rejects.toMatchObject({
      code: 'storage-error',
    });
    await saver.close();
  });

  it('refuses a newer layout recorded in the version row', async () => {
    const path = join(directory, 'layout-9.db');
    const first = new SqliteSaver({ path });
    await first.setup();
    await first.close();
    const database = new DatabaseSync(path);
    database.exec('UPDATE ctxloom_cp_checkpoints SET depth = 9 WHERE thread = -1');
    database.close();
    const saver = new SqliteSaver({ path });
    await expect(saver.setup()).rejects.toMatchObject({
      code: 'storage-error',
      message: expect.stringContaining(
        'newer ctxloom: table layout 9, and this ctxloom reads table layout 3 at most',
      ),
      path: 'ctxloom_cp_checkpoints',
    });
    await saver.close();
  });

  it('gives space back to the file after prune and vacuum', async () => {
    const path = join(directory, 'vacuum.db');
    const saver = new SqliteSaver({ path, durability: 'normal' });
    await chat(saver, 'vacuum', 30, { snapshotFrequency: 5 });
    await saver.vacuum();
    const before = statSync(path).size;
    await saver.prune({ keepLast: 2 });
    await saver.vacuum();
    expect(statSync(path).size).toBeLessThan(before);
    await saver.close();
  });
});
