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
