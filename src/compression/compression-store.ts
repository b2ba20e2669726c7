import { CtxloomError } from '../core/index.ts';
import { type CompressionState, CompressionStateSchema } from './compression-state.ts';
import type { ThreadId } from './thread-id.ts';

/**
 * The persistence port of this module: one value per thread id, written with optimistic
 * concurrency. ctxloom ships a memory and a `node:sqlite` implementation; the Blackboard's
 * StateBuilder module implements the same two methods to keep the state in checkpoints.
 * Implementations must never return one thread's value for another thread id, and must
 * return copies (mutating a loaded value never changes the stored one).
 */
export interface CompressionStore {
  /** The stored state of a session, or `undefined` when it has none. */
  load(threadId: ThreadId): Promise<CompressionState | undefined>;
  /**
   * Stores `state` under `state.threadId` when the stored revision equals `expectedRevision`
   * (`null`: nothing stored yet) and returns it with `revision` incremented. Throws `conflict`
   * otherwise.
   */
  save(state: CompressionState, options: { expectedRevision: number | null }): Promise<CompressionState>;
}

/** A {@link CompressionStore} in process memory (tests, single-process demos). */
export function createInMemoryCompressionStore(): CompressionStore {
  const rows = new Map<string, string>();
  return {
    async load(threadId) {
      const row = rows.get(threadId);
      return row === undefined ? undefined : CompressionStateSchema.parse(JSON.parse(row));
    },
    async save(state, { expectedRevision }) {
      const stored = rows.get(state.threadId);
      const storedRevision = stored === undefined ? null : (JSON.parse(stored) as CompressionState).revision;
      assertRevision(state.threadId, storedRevision, expectedRevision);
      const next = { ...state, revision: (storedRevision ?? -1) + 1 };
      rows.set(state.threadId, JSON.stringify(next));
      return CompressionStateSchema.parse(JSON.parse(rows.get(state.threadId) as string));
    },
  };
}

/** Throws `conflict` when a write was based on another revision than the stored one. */
export function assertRevision(threadId: string, stored: number | null, expected: number | null): void {
  if (stored !== expected) {
    throw new CtxloomError({
      code: 'conflict',
      message: `compression state of ${threadId} is at revision ${stored ?? 'none'}, write expected ${expected ?? 'none'}`,
      path: threadId,
      details: { stored, expected },
    });
  }
}
