import { CtxloomError } from '../core/index.ts';
import { shorten } from '../core/shorten.ts';
import type { ThreadLease, ThreadLeases } from '../runtime/checkpoint/thread-lease.ts';

/**
 * Serialises the read-check-write of one session thread. A checkpoint write reads the head
 * checkpoint and puts a child of it; two writers that read the same head would fork the
 * thread and one write would be lost, so every write of the checkpoint session store runs
 * inside `run(threadId, …)`.
 */
export interface ThreadLock {
  /** Runs `work` while holding the lock of `threadId`; releases it however `work` ends. */
  run<T>(threadId: string, work: () => Promise<T>): Promise<T>;
  /** Releases what the lock holds (connections). */
  close(): Promise<void>;
}

/**
 * A lock within this process: writes to one thread run one after another, writes to
 * different threads in parallel. Enough for one process per database (SQLite).
 */
export function createProcessThreadLock(): ThreadLock {
  const tails = new Map<string, Promise<unknown>>();
  return {
    async run(threadId, work) {
      const previous = tails.get(threadId) ?? Promise.resolve();
      const result = previous.then(work, work);
      const tail = result.catch(() => undefined);
      tails.set(threadId, tail);
      try {
        return await result;
      } finally {
        if (tails.get(threadId) === tail) tails.delete(threadId);
      }
    },
    async close() {},
  };
}

/** Options of {@link createLeaseThreadLock}. */
export interface LeaseThreadLockOptions {
  /** How long a write waits for another process's hold of the thread (ms). Default 10 000, then `conflict`. */
  waitMs?: number;
  /** Names the lock, so locks of one thread with different names never wait for each other. Default `ctxloom-session-store`. */
  name?: string;
}

/**
 * A {@link ThreadLock} across processes sharing one database: each write holds a lease (the
 * SQLite saver's `acquireThread`: a row held while its process lives, so a killed holder frees
 * it at once; on PostgreSQL `createPostgresThreadLock`'s advisory locks, and every store's
 * turn lock) under a key of its own, so the store's writes never wait for the
 * lease a process turn's `submitInput` holds on the thread itself. Within the process, writes
 * to one thread queue first. A write that waits past `waitMs` is a `conflict`, nothing written.
 */
export function createLeaseThreadLock(
  leases: ThreadLeases,
  options: LeaseThreadLockOptions = {},
): ThreadLock {
  const waitMs = Math.max(0, options.waitMs ?? 10_000);
  const local = createProcessThreadLock();
  return {
    run(threadId, work) {
      return local.run(threadId, async () => {
        let lease: ThreadLease;
        try {
          // The store's own key (as the PostgreSQL lock's), not the thread's: a process turn holds
          // the store's lock and then, in `submitInput`, the thread's lease.
          lease = await leases.acquireThread({
            threadId: JSON.stringify([options.name ?? 'ctxloom-session-store', threadId]),
            waitMs,
          });
        } catch (error) {
          if (!CtxloomError.is(error, 'conflict')) throw error;
          throw new CtxloomError({
            code: 'conflict',
            message: `session thread "${shorten(threadId)}" is held by another process; nothing was stored — retry when it is done`,
            path: 'sessionId',
            details: { reason: 'thread-busy', threadId: shorten(threadId) },
            cause: error,
          });
        }
        try {
          return await work();
        } finally {
          await lease.release();
        }
      });
    },
    async close() {},
  };
}
