/** Runs async work with at most `concurrency` tasks in flight; the rest wait in FIFO order. */
export interface Limiter {
  run<T>(task: () => Promise<T>): Promise<T>;
  /** Tasks running now. */
  readonly active: number;
  /** Tasks waiting. */
  readonly waiting: number;
  /** True when a task given now would wait (every slot is taken). */
  readonly busy: boolean;
}

/**
 * Creates a {@link Limiter}. The chat route runs its compiles through one, so a burst of
 * chats does not interleave a hundred CPU-bound compiles with the accepting of new requests:
 * each request gets its headers and `start` chunk at once and waits its turn in the stream.
 */
export function createLimiter(concurrency: number): Limiter {
  const limit = Math.max(1, Math.floor(concurrency));
  const queue: (() => void)[] = [];
  let active = 0;
  const release = () => {
    active--;
    queue.shift()?.();
  };
  return {
    get active() {
      return active;
    },
    get waiting() {
      return queue.length;
    },
    get busy() {
      return active >= limit;
    },
    async run(task) {
      if (active >= limit) await new Promise<void>((resolve) => queue.push(resolve));
      active++;
      try {
        return await task();
      } finally {
        release();
      }
    },
  };
}
