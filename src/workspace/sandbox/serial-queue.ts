const tails = new Map<string, Promise<unknown>>();

/**
 * Runs `task` after every earlier task queued under the same `key` has settled, so writers of
 * one file (e.g. appends to a session's `messages.json`) never interleave within a process.
 * A failed task does not block the queue. Returns the task's result.
 */
export function runSerialised<T>(key: string, task: () => Promise<T>): Promise<T> {
  const previous = tails.get(key) ?? Promise.resolve();
  const next = previous.then(task, task);
  const tail = next.then(
    () => undefined,
    () => undefined,
  );
  tails.set(key, tail);
  void tail.then(() => {
    if (tails.get(key) === tail) tails.delete(key);
  });
  return next;
}
