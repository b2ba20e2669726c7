import { z } from 'zod';
import { createRequirementTodoSnapshot } from './create-requirement-todo-snapshot.ts';
import { ProposedRequirementOpSchema } from './requirement-proposal-schema.ts';
import {
  EvidenceAnchorSchema,
  type RequirementTodoSnapshot,
  RequirementTodoSnapshotSchema,
} from './requirement-schema.ts';
import type { ThreadId } from './thread-id.ts';

/**
 * A question for the user instead of a change: a global delta proposed below the confidence
 * threshold, or a clarification the router asked for (seed 004 §5–6).
 */
export const OpenQuestionSchema = z.object({
  /** `Q<n>`, never reused. */
  id: z.string(),
  text: z.string().min(1),
  source: z.enum(['low-confidence-global-delta', 'clarification']),
  /** The ops that would be applied if the user confirms (for low-confidence global deltas). */
  proposedOps: z.array(ProposedRequirementOpSchema),
  confidence: z.number().min(0).max(1).nullable(),
  /** The user message that raised it. */
  anchor: EvidenceAnchorSchema.nullable(),
  status: z.enum(['open', 'answered', 'dismissed']),
});
/** A value of {@link OpenQuestionSchema}. */
export type OpenQuestion = z.infer<typeof OpenQuestionSchema>;

/**
 * The two-layer requirement memory of one session (seed 004 §3): a global TODO shared by all
 * agents and one scoped TODO per agent, plus open questions.
 */
export const RequirementTodoStateSchema = z.object({
  global: RequirementTodoSnapshotSchema,
  scoped: z.record(z.string(), RequirementTodoSnapshotSchema),
  openQuestions: z.array(OpenQuestionSchema),
});
/** A value of {@link RequirementTodoStateSchema}. */
export type RequirementTodoState = z.infer<typeof RequirementTodoStateSchema>;

/** An empty two-layer TODO for a session. */
export function createRequirementTodoState(options: { threadId: ThreadId }): RequirementTodoState {
  return {
    global: createRequirementTodoSnapshot({ threadId: options.threadId }),
    scoped: {},
    openQuestions: [],
  };
}

/** The scoped TODO of `agentId`, or an empty one at revision 0 when the agent has none yet. */
export function scopedSnapshotOf(state: RequirementTodoState, agentId: string): RequirementTodoSnapshot {
  return (
    state.scoped[agentId] ??
    createRequirementTodoSnapshot({ threadId: state.global.threadId as ThreadId, agentId })
  );
}
