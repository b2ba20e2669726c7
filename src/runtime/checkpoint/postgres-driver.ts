import type pg from 'pg';
import { openPostgresPool, poolExhaustedError } from '../../sources/postgres-pool.ts';
import { closedSaverError } from './assert-saver-options.ts';
import { postgresError } from './setup-failure.ts';
import {
  type SqlDriver,
  type SqlExecutor,
  type SqlParam,
  type SqlRow,
  toPostgresPlaceholders,
} from './sql-driver.ts';

/** Options of {@link createPostgresDriver}. Give either a `pool` or a `connectionString`. */
export interface PostgresDriverOptions {
  /** An existing pool; the driver never ends a pool it did not create. */
  pool?: pg.Pool;
  /** A connection string such as `postgres://postgres@127.0.0.1:5432/test`. */
  connectionString?: string;
  /**
   * Maximum pool size when the driver creates the pool: a whole number from 1 to 10 000 (else
   * `invalid-argument`). Default 10. Refused beside `pool`.
   */
  maxConnections?: number;
  /**
   * How long a statement or transaction waits for a connection of a pool the driver creates,
   * in ms: while all `maxConnections` are in use, or while one opens. A whole number from 1 to
   * 2 147 483 647; default 10 000, then `storage-error` with `details.reason` `pool-exhausted`.
   * Refused beside `pool` (set that pool's `connectionTimeoutMillis`).
   */
  connectionTimeoutMs?: number;
}

/** A {@link SqlDriver} over a `pg` pool. Each transaction checks out one client. */
export function createPostgresDriver(options: PostgresDriverOptions): SqlDriver & { pool: pg.Pool } {
  // `pg` is an optional peer: only a driver that creates its own pool loads it.
  const { pool, owned: ownsPool } = openPostgresPool({
    pool: options.pool,
    connectionString: options.connectionString,
    maxConnections: options.maxConnections,
    defaultMaxConnections: 10,
    connectionTimeoutMs: options.connectionTimeoutMs,
    feature: 'PostgresSaver with a connectionString',
  });
  const executorOf = (client: pg.Pool | pg.PoolClient): SqlExecutor => ({
    async all(sql, params = []) {
      const result = await client.query(toPostgresPlaceholders(sql), toPgParams(params));
      return result.rows as SqlRow[];
    },
    async run(sql, params = []) {
      const result = await client.query(toPostgresPlaceholders(sql), toPgParams(params));
      return result.rowCount ?? 0;
    },
  });
  const poolExecutor = executorOf(pool);
  let closed = false;
  return {
    dialect: 'postgres',
    pool,
    all: (sql, params) => typed(() => poolExecutor.all(sql, params)),
    run: (sql, params) => typed(() => poolExecutor.run(sql, params)),
    transaction: (work) => typed(() => inTransaction('BEGIN', work)),
    read: (work) => typed(() => inTransaction('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', work)),
    async close() {
      if (closed) return;
      // A caller's pool stays open for the caller; this driver is done with it either way.
      closed = true;
      if (ownsPool) await pool.end();
    },
  };

  /** PostgreSQL's and the pool's errors as typed ones (`storage-error`, `conflict`), never a raw `pg` error; none after `close()`. */
  function typed<T>(work: () => Promise<T>): Promise<T> {
    if (closed) return Promise.reject(closedSaverError());
    return work().catch((error: unknown) => {
      throw poolExhaustedError(error, pool) ?? postgresError(error);
    });
  }

  async function inTransaction<T>(begin: string, work: (executor: SqlExecutor) => Promise<T>): Promise<T> {
    const client = await pool.connect();
    try {
      await client.query(begin);
      const result = await work(executorOf(client));
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }
}

function toPgParams(params: readonly SqlParam[]): unknown[] {
  return params.map((param) =>
    param instanceof Uint8Array && !Buffer.isBuffer(param)
      ? Buffer.from(param.buffer, param.byteOffset, param.byteLength)
      : typeof param === 'bigint'
        ? param.toString()
        : param,
  );
}
