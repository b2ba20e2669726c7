import type pg from 'pg';
import { CtxloomError } from '../core/index.ts';
import { requirePeer } from '../llm/require-peer.ts';
import { createProcessThreadLock, type ThreadLock } from './thread-lock.ts';

/** Options of {@link createPostgresThreadLock}. */
export interface PostgresThreadLockOptions {
  /** e.g. `postgres://postgres@127.0.0.1:5432/test`. */
  connectionString: string;
  /**
   * Names the store, so two stores (schemas) on one database never wait for each other:
   * the lock key hashes the scope and the thread id. Use the saver's schema.
   */
  scope: string;
  /** Connections held at once by waiting or running writes (1..64). Default 4. */
  maxConnections?: number;
}

/**
 * A {@link ThreadLock} across processes sharing one PostgreSQL database: each write holds a
 * transaction-scoped advisory lock (`pg_advisory_xact_lock`) on a hash of the thread id, on
 * its own connection, while it reads and writes through the saver. The lock ends with that
 * transaction — on success, on error, and when the process dies (the server drops the
 * connection). Within the process, writes to one thread queue before taking a connection.
 * The pool is the lock's own: a write waiting for the lock never starves the saver's pool.
 */
export function createPostgresThreadLock(options: PostgresThreadLockOptions): ThreadLock {
  // Loaded here, not at import: `ctxloom/session` (and the server, MCP and CLI above it) must
  // load without `pg` for the files and SQLite stores; `pg` is needed for a PostgreSQL store.
  const { Pool } = requirePeer<typeof pg>({ name: 'pg', feature: 'a PostgreSQL session store' });
  const pool = new Pool({
    connectionString: options.connectionString,
    max: Math.min(64, Math.max(1, options.maxConnections ?? 4)),
  });
  pool.on('error', () => undefined);
  const local = createProcessThreadLock();
  return {
    run(threadId, work) {
      return local.run(threadId, async () => {
        let client: pg.PoolClient;
        try {
          client = await pool.connect();
        } catch (error) {
          throw storageError(error);
        }
        let done = false;
        try {
          try {
            await client.query('BEGIN');
            await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
              JSON.stringify(['ctxloom-session', options.scope, threadId]),
            ]);
          } catch (error) {
            throw storageError(error);
          }
          const result = await work();
          try {
            await client.query('COMMIT');
          } catch (error) {
            // The transaction wrote nothing but took the lock; the caller learns the connection
            // failed, typed, rather than a raw driver error.
            throw storageError(error);
          }
          done = true;
          return result;
        } finally {
          let broken: Error | undefined;
          if (!done)
            await client.query('ROLLBACK').catch((error: unknown) => {
              broken = error instanceof Error ? error : new Error(String(error));
            });
          // A connection that cannot roll back is not handed out again.
          client.release(broken);
        }
      });
    },
    async close() {
      await pool.end();
    },
  };
}

function storageError(error: unknown): CtxloomError {
  return new CtxloomError({
    code: 'storage-error',
    message: `cannot reach PostgreSQL for the session lock: ${error instanceof Error ? error.message : String(error)}`,
    cause: error,
  });
}
