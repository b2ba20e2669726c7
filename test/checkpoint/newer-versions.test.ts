import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { PostgresSaver } from '../../src/runtime/checkpoint/postgres-saver.ts';
import { chat } from '../../src/runtime/checkpoint/saver-scenarios.test-support.ts';
import type { SqlCheckpointSaver } from '../../src/runtime/checkpoint/sql-checkpoint-saver.ts';
import { SqliteSaver } from '../../src/runtime/checkpoint/sqlite-saver.ts';
import { CheckpointVersionError } from '../../src/runtime/index.ts';

// Issue 27, item 9: a process older than its data refuses it at start-up, with one typed error
// naming both versions, before it reads or writes anything.
const url = inject('pgUrl');
const directory = mkdtempSync(join(tmpdir(), 'ctxloom-versions-'));
const schemas: string[] = [];
const admin = new pg.Pool({ connectionString: url, max: 2 });

afterAll(async () => {
  rmSync(directory, { recursive: true, force: true });
  for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.end();
});

/** A database of one dialect: open a saver on it, run SQL on its table, list its rows. */
interface Database {
  open(): SqlCheckpointSaver;
  sql(statement: string): Promise<void>;
  rows(): Promise<string[]>;
}

let created = 0;
const dialects: { name: string; create: () => Database }[] = [
  {
    name: 'SQLite',
    create: () => {
      const path = join(directory, `db-${++created}.db`);
      return {
        open: () => new SqliteSaver({ path, durability: 'normal' }),
        async sql(statement) {
          const database = new DatabaseSync(path);
          database.exec(statement.replaceAll('$table', 'ctxloom_cp_checkpoints'));
          database.close();
        },
        async rows() {
          const database = new DatabaseSync(path, { readOnly: true });
          const rows = database
            .prepare(
              'SELECT thread, hex(checkpoint_id) AS id, depth, length(data) AS n FROM ctxloom_cp_checkpoints ORDER BY 1, 2',
            )
            .all();
          database.close();
          return rows.map((row) => JSON.stringify(row));
        },
      };
    },
  },
  {
    name: 'PostgreSQL',
    create: () => {
      const schema = `ctxloom_versions_${process.pid}_${++created}`;
      schemas.push(schema);
      const table = `"${schema}".ctxloom_cp_checkpoints`;
      return {
        open: () => new PostgresSaver({ connectionString: url, schema }),
        async sql(statement) {
          await admin.query(statement.replaceAll('$table', table));
        },
        async rows() {
          const result = await admin.query(
            `SELECT thread::text, encode(checkpoint_id, 'hex') AS id, depth, length(data) AS n FROM ${table} ORDER BY 1, 2`,
          );
          return result.rows.map((row) => JSON.stringify(row));
        },
      };
    },
  },
];

describe.each(dialects)('$name saver and a database of a newer ctxloom', ({ create }) => {
  it('records the newest record format it opens the database with', async () => {
    const database = create();
    const saver = database.open();
    await saver.setup();
    await saver.close();
    expect(await database.rows()).toContainEqual(expect.stringContaining('"id":"01","depth":5'));
  });

  it('refuses a newer record format at start-up, before any read or write, naming both versions', async () => {
    const database = create();
    const first = database.open();
    await chat(first, 't', 2);
    await first.close();
    await database.sql(`UPDATE $table SET depth = 6 WHERE thread = -1 AND checkpoint_id = ${hexOne()}`);
    const before = await database.rows();
    const saver = database.open();
    const refused = saver.setup();
    await expect(refused).rejects.toBeInstanceOf(CheckpointVersionError);
    await expect(refused).rejects.toMatchObject({
      code: 'storage-error',
      kind: 'record-format',
      stored: 6,
      supported: 5,
      message: expect.stringMatching(/checkpoint record format 6.*record format 5 at most/u),
    });
    // Every entry point runs the same check first.
    await expect(saver.getTuple({ configurable: { thread_id: 't' } })).rejects.toBeInstanceOf(
      CheckpointVersionError,
    );
    await expect(chat(saver, 't', 1, { firstTurn: 2 })).rejects.toBeInstanceOf(CheckpointVersionError);
    await saver.close();
    expect(await database.rows()).toEqual(before);
  });

  it('refuses a newer table layout the same way', async () => {
    const database = create();
    const first = database.open();
    await first.setup();
    await first.close();
    await database.sql(`UPDATE $table SET depth = 4 WHERE thread = -1 AND checkpoint_id = ${hexZero()}`);
    const saver = database.open();
    await expect(saver.setup()).rejects.toMatchObject({
      kind: 'layout',
      stored: 4,
      supported: 3,
      message: expect.stringContaining('table layout 4'),
    });
    await saver.close();
  });

  it('names both versions when a row holds a record of a newer format (a process started before the newer one)', async () => {
    const database = create();
    const first = database.open();
    await chat(first, 't', 1);
    await first.close();
    // A record whose first byte (its format) is 6, as a newer writer would store it.
    await database.sql(`UPDATE $table SET data = ${bytes('0600')} WHERE thread >= 0 AND data IS NOT NULL`);
    const saver = database.open();
    await expect(saver.getTuple({ configurable: { thread_id: 't' } })).rejects.toMatchObject({
      kind: 'record-format',
      stored: 6,
      supported: 5,
    });
    await saver.close();
  });

  function hexOne() {
    return create === dialects[0]?.create ? "x'01'" : "'\\x01'::bytea";
  }
  function hexZero() {
    return create === dialects[0]?.create ? "x'00'" : "'\\x00'::bytea";
  }
  function bytes(hex: string) {
    return create === dialects[0]?.create ? `x'${hex}'` : `'\\x${hex}'::bytea`;
  }
});

describe('a database written before the format row existed', () => {
  it('is opened and gets the row (the record-format-3 fixture of 94381e0)', async () => {
    const path = join(directory, 'format-3.db');
    copyFileSync(new URL('../fixtures/checkpoint-format-3.db', import.meta.url).pathname, path);
    const saver = new SqliteSaver({ path, durability: 'normal' });
    await saver.setup();
    await saver.close();
    const database = new DatabaseSync(path, { readOnly: true });
    const row = database
      .prepare("SELECT depth FROM ctxloom_cp_checkpoints WHERE thread = -1 AND checkpoint_id = x'01'")
      .get();
    database.close();
    expect(row).toEqual({ depth: 5 });
  });
});
