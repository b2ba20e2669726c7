import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createPostgresMemoryStore } from './postgres-memory-store.ts';

const url = process.env.CTXLOOM_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `ctxloom_memory_pool_${process.pid}_${Date.now().toString(36)}`;
const admin = new pg.Pool({ connectionString: url, max: 2 });

afterAll(async () => {
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.end();
});

/** Resolves once `count` statements on the memory table wait for a lock (so they hold their connections). */
async function blockedOnLock(count: number): Promise<void> {
  for (;;) {
    const result = await admin.query(
      `SELECT count(*)::int AS waiting FROM pg_stat_activity
        WHERE wait_event_type = 'Lock' AND query LIKE $1`,
      [`%"${schema}".ctxloom_memory %`],
    );
    if (result.rows[0]?.waiting === count) return;
    await sleep(10);
  }
}

describe('createPostgresMemoryStore on an exhausted pool', () => {
  it.each([
    { size: undefined, held: 4 },
    { size: 2, held: 2 },
  ])(
    'refuses an append when all its connections are held (storage-error, pool-exhausted) and stores nothing (maxConnections $size)',
    async ({ size, held }) => {
      const memory = await createPostgresMemoryStore({
        connectionString: url,
        schema,
        agentId: 'a',
        sessionId: `s${held}`,
        connectionTimeoutMs: 500,
        ...(size === undefined ? {} : { maxConnections: size }),
      });
      const locker = await admin.connect();
      try {
        await memory.append([{ id: 'm1', role: 'user', content: 'kept' }]);
        // Another transaction locks the table: as many marks as the pool's connections take them and wait.
        await locker.query('BEGIN');
        await locker.query(`LOCK TABLE "${schema}".ctxloom_memory IN ACCESS EXCLUSIVE MODE`);
        const marks = Array.from({ length: held }, () => memory.mark('m1', true));
        await blockedOnLock(held);
        const error = await memory
          .append([{ id: 'm2', role: 'user', content: 'refused' }])
          .catch((caught: unknown) => caught);
        expect(error).toMatchObject({
          name: 'CtxloomError',
          code: 'storage-error',
          details: { reason: 'pool-exhausted', maxConnections: held, connectionTimeoutMs: 500 },
        });
        await locker.query('COMMIT');
        await Promise.all(marks);
        expect(
          memory
            .view()
            .recent({ limit: 10 })
            .map((entry) => entry.id),
        ).toEqual(['m1']);
        const rows = await admin.query(
          `SELECT id FROM "${schema}".ctxloom_memory WHERE session_id = $1 ORDER BY seq`,
          [`s${held}`],
        );
        expect(rows.rows).toEqual([{ id: 'm1' }]);
      } finally {
        // Destroyed, not returned: a failed test must not leave the table locked.
        locker.release(true);
        await memory.close();
      }
    },
  );
});
