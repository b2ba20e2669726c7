import type { RequirementTodoSnapshot } from './requirement-schema.ts';
import type { ThreadId } from './thread-id.ts';

/** Options of {@link createRequirementTodoSnapshot}. */
export interface CreateRequirementTodoSnapshotOptions {
  threadId: ThreadId;
  /** The agent of a scoped TODO; omit (or `null`) for the session's global TODO. */
  agentId?: string | null;
}

/** An empty snapshot at revision 0. */
export function createRequirementTodoSnapshot(
  options: CreateRequirementTodoSnapshotOptions,
): RequirementTodoSnapshot {
  return {
    version: 1,
    threadId: options.threadId,
    agentId: options.agentId ?? null,
    revision: 0,
    nextSequence: 1,
    items: [],
    appliedDeltaIds: [],
    evidenceHistory: [],
  };
}

/**
 * The id the next `add` gets: `G<n>` in the global TODO, `<agentId>#<n>` in a scoped one.
 * `sequence` only grows, so an id is never given twice.
 */
export function requirementItemId(agentId: string | null, sequence: number): string {
  return agentId === null ? `G${sequence}` : `${agentId}#${sequence}`;
}
