import { emptyCheckpoint } from '@langchain/langgraph';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { checkpointTables } from './checkpoint-schema.ts';
import { createPostgresDriver } from './postgres-driver.ts';
import { chat, count } from './saver-scenarios.test-support.ts';
import { SqlCheckpointSaver } from './sql-checkpoint-saver.ts';
import type { SqlDriver } from './sql-driver.ts';
import { createSqliteDriver } from './sqlite-driver.ts';
import { NAME_ROW_ID, nameRowsQuery, threadName } from './thread-keys.ts';

const url = inject('pgUrl');
const schema = `ctxloom_keys_${process.pid}_${Date.now().toString(36)}`;
const pool = new pg.Pool({ connectionString: url, max: 4 });

beforeAll(async () => {
  await pool.query(`CREATE SCHEMA "${schema}"`);
});
afterAll(async () => {
  await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await pool.end();
});

/** Bare drivers: SQLite in memory, PostgreSQL on the shared pool and this file's schema. */
const drivers: { name: string; open: () => { driver: SqlDriver; schema?: string } }[] = [
  { name: 'SQLite', open: () => ({ driver: createSqliteDriver({ path: ':memory:' }) }) },
  { name: 'PostgreSQL', open: () => ({ driver: createPostgresDriver({ pool }), schema }) },
];

describe('thread keys (layout 3)', () => {
  for (const kind of drivers) {
    const openSaver = (prefix: string) => {
      const { driver, schema: pgSchema } = kind.open();
      const tables = checkpointTables({ prefix, ...(pgSchema === undefined ? {} : { schema: pgSchema }) });
      const saver = new SqlCheckpointSaver({
        driver,
        tables,
        ...(pgSchema === undefined ? {} : { schema: pgSchema }),
      });
      /** Writes the name row of another (thread, namespace) at `key`: what a hash collision leaves. */
      const occupy = async (key: number, intruder: string) => {
        await saver.setup();
        await driver.run(
          `INSERT INTO ${tables.checkpoints} (thread, depth, checkpoint_id, writes) VALUES (?, 0, ?, ?)`,
          [key, NAME_ROW_ID, threadName(intruder, '').bytes],
        );
      };
      const keysOf = async (threadId: string) => {
        const query = nameRowsQuery(tables, { threadId });
        return (await driver.all(query.sql, query.params)).map((row) => Number(row.thread));
      };
      return { saver, occupy, keysOf };
    };

    it(`takes the next slot when another name holds a thread's home key (${kind.name})`, async () => {
      const { saver, occupy, keysOf } = openSaver(`collide_${kind.name}_`);
      const home = threadName('collide', '').keys;
      await occupy(home[0] as number, 'intruder');
      const { app, config } = await chat(saver, 'collide', 2);
      expect(await keysOf('collide')).toEqual([home[1]]);
      expect((await app.getState(config)).values.turns).toBe(2);
      expect(await count(saver, 'collide')).toBeGreaterThan(0);
      await saver.deleteThread('collide');
      expect(await keysOf('collide')).toEqual([]);
      // The other name's row is untouched; the thread starts afresh at the free slot.
      expect(await keysOf('intruder')).toEqual([]);
      const { app: again, config: againConfig } = await chat(saver, 'collide', 1);
      expect((await again.getState(againConfig)).values.turns).toBe(1);
      await saver.close();
    });

    it(`refuses a put when all four slots hold other names (${kind.name})`, async () => {
      const { saver, occupy } = openSaver(`full_${kind.name}_`);
      for (const [index, key] of threadName('crowded', '').keys.entries())
        await occupy(key, `other-${index}`);
      await expect(chat(saver, 'crowded', 1)).rejects.toMatchObject({
        code: 'storage-error',
        message: expect.stringContaining('no free key for thread "crowded"'),
      });
      await saver.close();
    });

    it(`lists and deletes by thread across namespaces, and by namespace across threads (${kind.name})`, async () => {
      const { saver } = openSaver(`ns_${kind.name}_`);
      const put = (threadId: string, namespace: string, id: string) =>
        saver.put(
          { configurable: { thread_id: threadId, checkpoint_ns: namespace } },
          { ...emptyCheckpoint(), id },
          { source: 'input', step: -1, parents: {} },
          {},
        );
      const ids = ['1ef4f797-8335-6428-8001-8a1503f9b875', '1ef4f797-8335-6428-8001-8a1503f9b876'];
      for (const id of ids) {
        await put('a', '', id);
        await put('a', 'child:1', id);
        await put('b', 'child:1', id);
      }
      const listed = async (configurable: Record<string, string>) => {
        const seen: string[] = [];
        for await (const tuple of saver.list({ configurable })) {
          seen.push(`${tuple.config.configurable?.thread_id}/${tuple.config.configurable?.checkpoint_ns}`);
        }
        return seen;
      };
      expect(await listed({ thread_id: 'a' })).toEqual(['a/', 'a/', 'a/child:1', 'a/child:1']);
      expect(await listed({ checkpoint_ns: 'child:1' })).toEqual([
        'a/child:1',
        'a/child:1',
        'b/child:1',
        'b/child:1',
      ]);
      expect(await listed({})).toHaveLength(6);
      await saver.deleteThread('a');
      expect(await listed({})).toEqual(['b/child:1', 'b/child:1']);
      await expect(
        saver.getTuple({ configurable: { thread_id: 'b', checkpoint_ns: 'child:1' } }),
      ).resolves.toMatchObject({ checkpoint: { id: ids[1] } });
      await saver.close();
    });

    it(`refuses a NUL in a thread id or namespace, naming the field (${kind.name})`, async () => {
      const { saver } = openSaver(`nul_${kind.name}_`);
      await expect(
        saver.put(
          { configurable: { thread_id: 'a\u0000b' } },
          emptyCheckpoint(),
          { source: 'input', step: -1, parents: {} },
          {},
        ),
      ).rejects.toMatchObject({ code: 'invalid-argument', path: 'configurable.thread_id' });
      await saver.close();
    });
  }
});
