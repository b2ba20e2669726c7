import pg from 'pg';
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
  /** Maximum pool size when the driver creates the pool. Default 10. */
  maxConnections?: number;
}

/** A {@link SqlDriver} over a `pg` pool. Each transaction checks out one client. */
export function createPostgresDriver(options: PostgresDriverOptions): SqlDriver & { pool: pg.Pool } {
  const ownsPool = options.pool === undefined;
  const pool =
    options.pool ??
    new pg.Pool({ connectionString: options.connectionString, max: options.maxConnections ?? 10 });
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
    all: poolExecutor.all,
    run: poolExecutor.run,
    transaction: (work) => inTransaction('BEGIN', work),
    read: (work) => inTransaction('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', work),
    async close() {
      if (closed || !ownsPool) return;
      closed = true;
      await pool.end();
    },
  };

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
