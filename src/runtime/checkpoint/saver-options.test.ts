import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { PostgresSaver } from './postgres-saver.ts';
import { SqliteSaver } from './sqlite-saver.ts';

const config = { configurable: { thread_id: 't1' } };
// Refused before any connection: no server is reached (the pool connects on its first query).
const connectionString = 'postgres://127.0.0.1:5432/test';
const url = process.env.CTXLOOM_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

describe('the SQL savers on a misspelt option', () => {
  it.each([
    ['SqliteSaver', 'durability', () => new SqliteSaver({ path: ':memory:', durability: 'fast' as never })],
    [
      'SqliteSaver',
      'snapshots',
      () => new SqliteSaver({ path: ':memory:', snapshots: 'references' as never }),
    ],
    ['SqliteSaver', 'compression', () => new SqliteSaver({ path: ':memory:', compression: 'gzip' as never })],
    ['PostgresSaver', 'snapshots', () => new PostgresSaver({ connectionString, snapshots: 'diff' as never })],
    [
      'PostgresSaver',
      'connectionTimeoutMs',
      () => new PostgresSaver({ connectionString, connectionTimeoutMs: 0 }),
    ],
    ['PostgresSaver', 'maxConnections', () => new PostgresSaver({ connectionString, maxConnections: 0 })],
    [
      'PostgresSaver',
      'maxConnections',
      () => new PostgresSaver({ pool: new pg.Pool({ connectionString }), maxConnections: 4 }),
    ],
    [
      'PostgresSaver',
      'compression',
      () => new PostgresSaver({ connectionString, compression: 'zstd' as never }),
    ],
  ])('%s refuses %s with invalid-argument naming it, not the default', (_, option, create) => {
    expect(create).toThrow(
      expect.objectContaining({ name: 'CtxloomError', code: 'invalid-argument', path: option }),
    );
  });
});

describe('PostgresSaver with maxConnections', () => {
  it('opens its pool at that size: a held thread lease takes the one connection, the next call waits its bound', async () => {
    const schema = `cp_max_${process.pid}_${Date.now()}`;
    const saver = new PostgresSaver({
      connectionString: url,
      schema,
      maxConnections: 1,
      connectionTimeoutMs: 300,
    });
    try {
      const lease = await saver.acquireThread({ threadId: 't1' });
      const error = await saver.getTuple(config).catch((caught: unknown) => caught);
      expect(error).toMatchObject({
        code: 'storage-error',
        details: { reason: 'pool-exhausted', maxConnections: 1, connectionTimeoutMs: 300 },
      });
      await lease.release();
      expect(await saver.getTuple(config)).toBeUndefined();
    } finally {
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
      await saver.close();
    }
  });
});

describe('the SQL savers after close()', () => {
  it('SqliteSaver refuses every use with a storage-error, not ERR_INVALID_STATE', async () => {
    const saver = new SqliteSaver({ path: ':memory:' });
    await saver.setup();
    await saver.close();
    for (const use of [() => saver.getTuple(config), () => saver.sizeBytes(), () => saver.vacuum()]) {
      const error = await use().catch((caught: unknown) => caught);
      expect(error).toMatchObject({ name: 'CtxloomError', code: 'storage-error' });
      expect((error as Error).message).toContain('closed');
    }
    // Closing twice is still fine.
    await expect(saver.close()).resolves.toBeUndefined();
  });

  it('PostgresSaver refuses every use with a storage-error, its own pool or a caller’s', async () => {
    const own = new PostgresSaver({ connectionString });
    await own.close();
    const error = await own.getTuple(config).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: 'CtxloomError', code: 'storage-error' });
    expect((error as Error).message).toContain('closed');
    const pool = new pg.Pool({ connectionString });
    const shared = new PostgresSaver({ pool });
    await shared.close();
    await expect(shared.getTuple(config)).rejects.toMatchObject({ code: 'storage-error' });
    // The caller's pool is the caller's to end.
    expect(pool.ended).toBe(false);
    await pool.end();
  });
});
