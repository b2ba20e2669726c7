import { postgresLeases } from '../runtime/checkpoint/thread-lease.ts';
import { openPostgresPool } from '../sources/postgres-pool.ts';
import { createLeaseThreadLock, type ThreadLock } from './thread-lock.ts';

/** Options of {@link createPostgresThreadLock}. */
export interface PostgresThreadLockOptions {
  /** e.g. `postgres://postgres@127.0.0.1:5432/test`. */
  connectionString: string;
  /**
   * Names the store, so two stores (schemas) on one database never wait for each other:
   * the lock key hashes the scope and the thread id. Use the saver's schema.
   */
  scope: string;
  /**
   * Connections held at once by running writes, a whole number from 1 to 64 (else
   * `invalid-argument`); a waiting write holds one only while it tries. Default 4.
   */
  maxConnections?: number;
  /**
   * How long a write waits for a connection of the lock's pool, in ms: while all
   * `maxConnections` are held by running writes, or while one opens. A whole number from 1 to
   * 2 147 483 647; default 10 000, then `storage-error` with `details.reason` `pool-exhausted`,
   * nothing written.
   */
  connectionTimeoutMs?: number;
  /**
   * How long a write waits for another process's hold of the thread, in ms (a process turn
   * holds it from its input to its last write). Default 10 000, then `conflict` with
   * `details.reason` `thread-busy`, nothing written — as the SQLite store's writes and every
   * store's turns ({@link createLeaseThreadLock}).
   */
  waitMs?: number;
}

/**
 * A {@link ThreadLock} across processes sharing one PostgreSQL database: each write holds a
 * session-level advisory lock (`pg_try_advisory_lock`, `postgresLeases`) on a hash of the scope
 * and the thread id, on a connection of the lock's own pool, while it reads and writes through
 * the saver. The lock ends with the write — and when the process dies (the server drops the
 * connection). It is taken as the SQLite store's lease is ({@link createLeaseThreadLock}):
 * within the process, writes to one thread queue first; a write that waits past `waitMs` for
 * another process is a `conflict` (`thread-busy`), nothing written. The pool is the lock's own:
 * a held lock never takes a connection the saver's writes need.
 */
export function createPostgresThreadLock(options: PostgresThreadLockOptions): ThreadLock {
  // `pg` is loaded as the pool opens, not at import: `ctxloom/session` (and the server, MCP and
  // CLI above it) must load without `pg` for the files and SQLite stores.
  const { pool } = openPostgresPool({
    connectionString: options.connectionString,
    maxConnections: options.maxConnections,
    defaultMaxConnections: 4,
    maxConnectionsLimit: 64,
    connectionTimeoutMs: options.connectionTimeoutMs,
    feature: 'a PostgreSQL session store',
  });
  const lock = createLeaseThreadLock(
    postgresLeases(pool, JSON.stringify(['ctxloom-session', options.scope])),
    {
      ...(options.waitMs === undefined ? {} : { waitMs: options.waitMs }),
    },
  );
  return {
    run: (threadId, work) => lock.run(threadId, work),
    async close() {
      await lock.close();
      await pool.end();
    },
  };
}
