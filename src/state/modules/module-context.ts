import type { PatchBuffer } from '../patch-buffer.ts';
import type { BlackboardState } from '../types.ts';

/** What every module gets: the state snapshot the node started from, and the shared patch. */
export interface ModuleContext {
  state: Readonly<Partial<BlackboardState>> & Readonly<Record<string, unknown>>;
  buffer: PatchBuffer;
  /** Clock in epoch milliseconds (injected for tests). */
  now: () => number;
  /** Id factory for non-human messages (injected for tests). */
  newId: () => string;
}

/** The current value of a plain field: this patch's pending write, else the snapshot, else `fallback`. */
export function current<K extends keyof BlackboardState>(
  context: ModuleContext,
  key: K,
  fallback: BlackboardState[K],
): BlackboardState[K] {
  const pending = context.buffer.pending(key);
  if (pending !== undefined) return pending.value as BlackboardState[K];
  const value = context.state[key];
  return value === undefined ? fallback : (value as BlackboardState[K]);
}
