import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { CtxloomError } from '../../core/errors.ts';
import { poolExhaustedError } from '../../sources/postgres-pool.ts';
import { postgresError } from './setup-failure.ts';
import type { SqlDriver } from './sql-driver.ts';

/** One process's exclusive right to run a thread (see {@link ThreadLeases}). */
export interface ThreadLease {
  readonly threadId: string;
  /** Gives the thread back. Idempotent. */
  release(): Promise<void>;
}

/** Options of {@link ThreadLeases.acquireThread}. */
export interface AcquireThreadOptions {
  threadId: string;
  /** How long to wait for another holder to release, in milliseconds. Default 0: fail at once. */
  waitMs?: number;
}

/**
 * One writer per thread, across processes: a saver that implements this lets the session
 * entry (`submitInput`) run a thread only while it holds the thread's lease, so a second
 * process never forks the thread nor re-runs a node another live process is running.
 */
export interface ThreadLeases {
  /** Takes the thread's lease, waiting up to `waitMs`; throws {@link ThreadBusyError} when another holder keeps it. */
  acquireThread(options: AcquireThreadOptions): Promise<ThreadLease>;
}

/** True when `value` implements {@link ThreadLeases}. */
export function hasThreadLeases(value: unknown): value is ThreadLeases {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { acquireThread?: unknown }).acquireThread === 'function'
  );
}

/**
 * The typed error of a second writer: another process (or another call in this one) holds the
 * thread. Code `conflict`; `details.threadId` names the thread. Nothing was run or written:
 * retry later with the same input id (inputs are idempotent).
 */
export class ThreadBusyError extends CtxloomError {
  readonly threadId: string;

  constructor(threadId: string, holder?: string) {
    super({
      code: 'conflict',
      message: `thread "${threadId}" is being run by ${holder ?? 'another writer'}; one writer per thread — retry when it is done`,
      path: 'configurable.thread_id',
      details: { reason: 'thread-busy', threadId, ...(holder === undefined ? {} : { holder }) },
    });
    this.threadId = threadId;
  }
}

const POLL_MS = 25;

async function acquireWithRetry(
  options: AcquireThreadOptions,
  attempt: () => Promise<ThreadLease | string>,
): Promise<ThreadLease> {
  const deadline = Date.now() + Math.max(0, options.waitMs ?? 0);
  for (;;) {
    const result = await attempt();
    if (typeof result !== 'string') return result;
    if (Date.now() >= deadline) throw new ThreadBusyError(options.threadId, result || undefined);
    await sleep(POLL_MS + Math.floor(Math.random() * POLL_MS));
  }
}

/**
 * PostgreSQL leases: a session-level advisory lock (`pg_try_advisory_lock` on a hash of
 * `scope` and the thread id) held on one pooled connection for as long as the lease lives. The
 * database releases it when the holder's connection ends, so a crashed process never
 * leaves a thread locked. `scope` keeps users apart: the saver passes its checkpoints table,
 * the session store's write lock (`createPostgresThreadLock`) its own name and schema.
 */
export function postgresLeases(pool: pg.Pool, scope: string): ThreadLeases {
  return {
    acquireThread: (options) =>
      acquireWithRetry(options, async () => {
        const key = `${scope}:lease:${options.threadId}`;
        let client: pg.PoolClient;
        try {
          client = await pool.connect();
        } catch (error) {
          throw poolExhaustedError(error, pool) ?? postgresError(error);
        }
        let held = false;
        try {
          const result = await client.query(
            'SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS held, pg_backend_pid() AS pid',
            [key],
          );
          held = result.rows[0]?.held === true;
        } catch (error) {
          client.release(error instanceof Error ? error : true);
          throw postgresError(error);
        }
        if (!held) client.release();
        if (!held) return '';
        let released = false;
        return {
          threadId: options.threadId,
          async release() {
            if (released) return;
            released = true;
            try {
              await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [key]);
              client.release();
            } catch (error) {
              // A broken connection drops its locks with it; never return it to the pool.
              client.release(error instanceof Error ? error : true);
            }
          },
        };
      }),
  };
}

/**
 * Leases kept in a row per thread of `table` (holder token, host, pid, expiry), taken by a
 * compare-and-set in one short transaction, so a held lease holds no connection: the SQLite
 * saver's writer leases, and any hold long enough that a pooled PostgreSQL connection must not
 * be kept for it (a session turn streaming a model's answer). A lease is held while its process
 * lives (same host: `kill(pid, 0)`) and, from another host, until it expires; the holder renews
 * it every `ttlMs / 3`. A crashed holder's lease is taken over at once on its host, after
 * `ttlMs` from another.
 */
export function rowLeases(driver: SqlDriver, table: string, ttlMs = 30_000): ThreadLeases {
  let created = false;
  const host = hostname();
  const postgres = driver.dialect === 'postgres';
  return {
    acquireThread: (options) =>
      acquireWithRetry(options, async () => {
        const token = randomUUID();
        const holder = await driver.transaction(async (executor) => {
          if (!created) {
            // PostgreSQL's CREATE … IF NOT EXISTS races another process's: serialise it.
            if (postgres) await executor.all('SELECT pg_advisory_xact_lock(hashtext(?))', [table]);
            await executor.run(
              `CREATE TABLE IF NOT EXISTS ${table} (thread_id TEXT PRIMARY KEY, token TEXT NOT NULL, host TEXT NOT NULL, pid INTEGER NOT NULL, expires_at ${postgres ? 'BIGINT' : 'INTEGER'} NOT NULL)`,
            );
          }
          const row = (
            await executor.all(`SELECT token, host, pid, expires_at FROM ${table} WHERE thread_id = ?`, [
              options.threadId,
            ])
          )[0];
          if (row !== undefined && stillHeld(row, host))
            return `process ${String(row.pid)} on ${String(row.host)}`;
          const values = [token, host, process.pid, Date.now() + ttlMs];
          // Set only what was read: another process that took the row meanwhile (no row, or a
          // dead holder's) wins, and this attempt waits like any other.
          const changed =
            row === undefined
              ? await executor.run(
                  `INSERT INTO ${table} (token, host, pid, expires_at, thread_id) VALUES (?, ?, ?, ?, ?) ON CONFLICT (thread_id) DO NOTHING`,
                  [...values, options.threadId],
                )
              : await executor.run(
                  `UPDATE ${table} SET token = ?, host = ?, pid = ?, expires_at = ? WHERE thread_id = ? AND token = ?`,
                  [...values, options.threadId, String(row.token)],
                );
          return changed === 1 ? undefined : '';
        });
        created = true;
        if (holder !== undefined) return holder;
        const renew = setInterval(() => {
          driver
            .run(`UPDATE ${table} SET expires_at = ? WHERE thread_id = ? AND token = ?`, [
              Date.now() + ttlMs,
              options.threadId,
              token,
            ])
            .catch(() => undefined);
        }, ttlMs / 3);
        renew.unref();
        let released = false;
        return {
          threadId: options.threadId,
          async release() {
            if (released) return;
            released = true;
            clearInterval(renew);
            await driver.run(`DELETE FROM ${table} WHERE thread_id = ? AND token = ?`, [
              options.threadId,
              token,
            ]);
          },
        };
      }),
  };
}

function stillHeld(row: Record<string, unknown>, host: string): boolean {
  if (String(row.host) !== host) return Number(row.expires_at) > Date.now();
  try {
    process.kill(Number(row.pid), 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
