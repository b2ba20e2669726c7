import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createPostgresDriver } from './postgres-driver.ts';

const url = process.env.CTXLOOM_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Runs a transaction on `driver` that holds its connection until `release()`; `held` resolves once it does. */
function holdConnection(driver: ReturnType<typeof createPostgresDriver>) {
  let release: () => void = () => undefined;
  let markHeld: () => void = () => undefined;
  const held = new Promise<void>((resolve) => {
    markHeld = resolve;
  });
  const done = driver.transaction(async () => {
    markHeld();
    await new Promise<void>((resolve) => {
      release = resolve;
    });
  });
  return { held, done, release: () => release() };
}

describe('createPostgresDriver on an exhausted pool', () => {
  it('refuses a statement and a transaction when every connection is held (storage-error, pool-exhausted)', async () => {
    const driver = createPostgresDriver({
      connectionString: url,
      maxConnections: 1,
      connectionTimeoutMs: 500,
    });
    try {
      const other = holdConnection(driver);
      await other.held;
      const exhausted = {
        name: 'CtxloomError',
        code: 'storage-error',
        details: { reason: 'pool-exhausted', maxConnections: 1, connectionTimeoutMs: 500 },
      };
      const statement = await driver.all('SELECT 1 AS one').catch((caught: unknown) => caught);
      expect(statement).toMatchObject(exhausted);
      expect((statement as Error).message).toMatch(/all 1 connections of the pool/u);
      let ran = false;
      await expect(
        driver.transaction(async () => {
          ran = true;
        }),
      ).rejects.toMatchObject(exhausted);
      expect(ran).toBe(false);
      other.release();
      await other.done;
      expect(await driver.all('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    } finally {
      await driver.close();
    }
  });

  it('words a caller’s pool that timed out the same way, and refuses connectionTimeoutMs beside it', async () => {
    const pool = new pg.Pool({ connectionString: url, max: 1, connectionTimeoutMillis: 500 });
    const driver = createPostgresDriver({ pool });
    try {
      expect(() => createPostgresDriver({ pool, connectionTimeoutMs: 500 })).toThrow(
        expect.objectContaining({ code: 'invalid-argument', path: 'connectionTimeoutMs' }),
      );
      // Nor a pool size it would ignore, nor one that is not a size.
      expect(() => createPostgresDriver({ pool, maxConnections: 3 })).toThrow(
        expect.objectContaining({ code: 'invalid-argument', path: 'maxConnections' }),
      );
      for (const maxConnections of [0, 2.5, Number.NaN]) {
        expect(() => createPostgresDriver({ connectionString: url, maxConnections })).toThrow(
          expect.objectContaining({ code: 'invalid-argument', path: 'maxConnections' }),
        );
      }
      const other = holdConnection(driver);
      await other.held;
      await expect(driver.run('SELECT 1')).rejects.toMatchObject({
        code: 'storage-error',
        details: { reason: 'pool-exhausted', maxConnections: 1, connectionTimeoutMs: 500 },
      });
      other.release();
      await other.done;
    } finally {
      await driver.close();
      await pool.end();
    }
  });
});
