import { z } from 'zod';

/**
 * Where a requirement came from: the user's turn, the message id, and a verbatim quote that
 * is a substring of that message's text (seed 004 §2.1).
 */
export const EvidenceAnchorSchema = z.object({
  /** 0-based index of the user turn in the session. */
  turnIndex: z.number().int().min(0),
  messageId: z.string().min(1),
  /** Exact substring of the message text; never paraphrased. */
  quote: z.string().min(1),
});
/** A value of {@link EvidenceAnchorSchema}. */
export type EvidenceAnchor = z.infer<typeof EvidenceAnchorSchema>;

/**
 * Kinds of requirement: data `input`s and `output`s, business `rule`s (metric definitions,
 * 口径), `acceptance` criteria, other `constraint`s, `preference`s and open `question`s.
 */
export const REQUIREMENT_TYPES = [
  'input',
  'output',
  'rule',
  'acceptance',
  'constraint',
  'preference',
  'question',
] as const;
/** Validates a {@link RequirementType}. */
export const RequirementTypeSchema = z.enum(REQUIREMENT_TYPES);
/** A value of {@link RequirementTypeSchema}. */
export type RequirementType = z.infer<typeof RequirementTypeSchema>;

/** `must` > `should` > `could`; the view keeps higher priorities first. */
export const RequirementPrioritySchema = z.enum(['must', 'should', 'could']);
/** A value of {@link RequirementPrioritySchema}. */
export type RequirementPriority = z.infer<typeof RequirementPrioritySchema>;

/** `open` is live; `done` is satisfied but kept; `cancelled` stays for the audit trail. */
export const RequirementStatusSchema = z.enum(['open', 'done', 'cancelled']);
/** A value of {@link RequirementStatusSchema}. */
export type RequirementStatus = z.infer<typeof RequirementStatusSchema>;

/** One requirement with a stable id that is never reused, even after cancel or reset. */
export const RequirementItemSchema = z.object({
  id: z.string().min(1),
  type: RequirementTypeSchema,
  priority: RequirementPrioritySchema,
  status: RequirementStatusSchema,
  text: z.string().min(1),
  /** Anchors in the order they were added; the view shows only the newest few. */
  evidence: z.array(EvidenceAnchorSchema).min(1),
});
/** A value of {@link RequirementItemSchema}. */
export type RequirementItem = z.infer<typeof RequirementItemSchema>;

const changes = z.object({
  text: z.string().min(1).optional(),
  type: RequirementTypeSchema.optional(),
  priority: RequirementPrioritySchema.optional(),
  status: z.enum(['open', 'done']).optional(),
});

/** One validated operation of a delta. Ids of `add` are assigned by ctxloom, never by a model. */
export const RequirementOpSchema = z.discriminatedUnion('op', [
  z.object({
    op: z.literal('add'),
    id: z.string().min(1),
    type: RequirementTypeSchema,
    priority: RequirementPrioritySchema,
    text: z.string().min(1),
    evidence: EvidenceAnchorSchema,
  }),
  z.object({ op: z.literal('update'), id: z.string().min(1), changes, evidence: EvidenceAnchorSchema }),
  z.object({ op: z.literal('cancel'), id: z.string().min(1), evidence: EvidenceAnchorSchema }),
  z.object({ op: z.literal('reset'), evidence: EvidenceAnchorSchema }),
]);
/** A value of {@link RequirementOpSchema}. */
export type RequirementOp = z.infer<typeof RequirementOpSchema>;

/**
 * The change one user message makes to one snapshot. `id` makes it idempotent: a snapshot
 * records applied delta ids, so applying the same delta twice changes nothing.
 */
export const RequirementTodoDeltaSchema = z.object({
  id: z.string().min(1),
  threadId: z.string().min(1),
  /** `null` for the global TODO, else the agent whose scoped TODO it changes. */
  agentId: z.string().min(1).nullable(),
  /** Revision of the snapshot the delta was computed against. */
  baseRevision: z.number().int().min(0),
  ops: z.array(RequirementOpSchema),
});
/** A value of {@link RequirementTodoDeltaSchema}. */
export type RequirementTodoDelta = z.infer<typeof RequirementTodoDeltaSchema>;

/** One entry of the audit trail: which delta touched which item, with what evidence. */
export const EvidenceRecordSchema = z.object({
  deltaId: z.string(),
  op: z.enum(['add', 'update', 'cancel', 'reset']),
  /** The item touched; `null` for `reset`. */
  itemId: z.string().nullable(),
  evidence: EvidenceAnchorSchema,
  /** Text of the item after the op, for `add` and text updates. */
  text: z.string().optional(),
});
/** A value of {@link EvidenceRecordSchema}. */
export type EvidenceRecord = z.infer<typeof EvidenceRecordSchema>;

/**
 * The structured TODO of one session, global (`agentId: null`) or scoped to one agent. Saved
 * as is in state (`version` 1); `evidenceHistory` is the full audit trail and is never sent
 * to a model — {@link buildRequirementTodoView} renders the bounded view instead.
 */
export const RequirementTodoSnapshotSchema = z.object({
  version: z.literal(1),
  threadId: z.string().min(1),
  agentId: z.string().min(1).nullable(),
  /** Incremented by every applied delta. */
  revision: z.number().int().min(0),
  /** Next id sequence number; only grows, so ids are never reused. */
  nextSequence: z.number().int().min(1),
  items: z.array(RequirementItemSchema),
  appliedDeltaIds: z.array(z.string()),
  evidenceHistory: z.array(EvidenceRecordSchema),
});
/** A value of {@link RequirementTodoSnapshotSchema}. */
export type RequirementTodoSnapshot = z.infer<typeof RequirementTodoSnapshotSchema>;
