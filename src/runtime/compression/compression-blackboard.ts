import { DeltaValue, type StateSchemaField } from '@langchain/langgraph';
import { z } from 'zod';
import { CompressScopeSchema, isThreadId } from '../../compression/index.ts';
import type { PendingRequest } from '../../routing/index.ts';
import { type BlackboardOptions, createBlackboard } from '../../state/index.ts';
import { upsertRecords } from './compression-records.ts';

/** A request waiting for an answer (seed 004 §4.1), as stored in the Blackboard. */
export const PendingRequestSchema = z.object({
  id: z.string(),
  kind: z.enum(['human', 'agent', 'tool']),
  status: z.enum(['pending', 'answered', 'cancelled']),
  createdBy: z.string(),
  resumeTo: z.string().optional(),
  question: z.string(),
});

/** Seed 004's `coordination_snapshot` plus the session's user-turn counter. */
export const CoordinationStateSchema = z.object({
  pendingRequests: z.array(PendingRequestSchema),
  requestResults: z.array(z.object({ requestId: z.string(), summary: z.string() })),
  /** User messages the commander has handled; the next one gets this turn index (0-based). */
  userTurns: z.number().int().min(0),
  /** What the commander and the compact stage decided for the latest user message. */
  lastTurn: z
    .object({
      commander: z.record(z.string(), z.unknown()).nullable(),
      compaction: z.record(z.string(), z.unknown()).nullable(),
      reviews: z.array(z.record(z.string(), z.unknown())).optional(),
    })
    .optional(),
});
/** A value of {@link CoordinationStateSchema} (requests typed as `ctxloom/routing`'s `PendingRequest`). */
export interface CoordinationState {
  pendingRequests: PendingRequest[];
  requestResults: { requestId: string; summary: string }[];
  userTurns: number;
  /** What the commander and the compact stage decided for the latest user message (kept once, not per turn). */
  lastTurn?: LastTurnRecord;
}

/** The commander's decision and the compact stage's numbers for the latest user message. */
export interface LastTurnRecord {
  commander: CommanderRecord | null;
  compaction: CompactionRecord | null;
  /** The commander's reviews of agents' work on this message, in order (`review: true` only). */
  reviews?: CommanderRecord[];
}

/** The commander's record of one routed user message. */
export interface CommanderRecord {
  messageId: string;
  turn: number;
  outcome: 'routed' | 'resume' | 'clarification' | 'command';
  /**
   * Why no agent runs this turn, or `null` when one does: the router's rejection reason
   * (`clarification`), or the commander's (`invalid-action` when an action was rejected and
   * the decision rolled back, `router-asked` when the router asked a question).
   */
  reason: string | null;
  /** The agent that runs next (picked or resumed), or `null` when the turn goes back to the user. */
  target: string | null;
  confidence: number | null;
  /** `type:status` for each commander action (`applied`, `queued`, `no-op`, `rejected`, `rolled-back`). */
  actions: string[];
  /** The commander's message for each action, in the same order: a rejection's cause, what a rollback undid. */
  actionMessages: string[];
  resolvedRequestIds: string[];
  /** Where control went (`agent`, `clarify`, `compress`, `rework`, `gate`); absent in records written before it existed. */
  next?: string;
}

/** What the compact stage decided for one agent call. */
export interface CompactionRecord {
  agentId: string;
  /** Tokens of the payload sent (after compression/clipping). */
  tokens: number;
  trigger: 'none' | 'soft' | 'hard';
  compressed: 'none' | 'soft' | 'hard';
  softLimit: number;
  /** Messages left out by forced clipping, oldest first. */
  clippedIds: string[];
}

/** Session-level compression fields: identity, revision, `/compress` switch, history cut. */
export const CompressionSessionSchema = z.object({
  threadId: z.string().refine(isThreadId, 'thread id must look like <app>:user:<userId>:session:<sessionId>'),
  revision: z.number().int().min(0),
  forceContextClipping: z.boolean(),
  clippingScope: CompressScopeSchema.nullable(),
  /** After an automatic compression: the oldest history message still compiled in; `null`: all. */
  historyFromMessageId: z.string().nullable(),
});
/** A value of {@link CompressionSessionSchema}. */
export type CompressionSession = z.infer<typeof CompressionSessionSchema>;

/**
 * The Blackboard fields that hold `ctxloom/compression` and `ctxloom/routing` state, one per
 * channel so a checkpoint stores only what a step changed (the artifact contents are not
 * re-serialised when only a TODO moved).
 */
export const COMPRESSION_KEYS = {
  requirements: 'compression_requirements',
  artifacts: 'compression_artifacts',
  records: 'compression_records',
  session: 'compression_session',
  coordination: 'compression_coordination',
} as const;

const recordsSchema = z.record(z.string(), z.unknown());
const skeletonSchema = z.record(z.string(), z.unknown()).nullable().default(null);

/**
 * The Blackboard extension fields of {@link COMPRESSION_KEYS}. Every growing list of the
 * compression state — requirement items, audit entries, applied delta ids, artifact entries,
 * tool evidence, raw contents — is one record in `compression_records`, a delta channel with
 * an ordered upsert: a step stores only the records it added or changed. The requirement and
 * artifact fields hold skeletons (scalars and ordered ids); session and coordination are
 * plain. `snapshotFrequency` as in `createBlackboard`.
 */
export function compressionExtensions(
  options: { snapshotFrequency?: number } = {},
): Record<string, StateSchemaField> {
  return {
    [COMPRESSION_KEYS.records]: new DeltaValue(
      recordsSchema.default(() => ({})),
      {
        inputSchema: recordsSchema,
        reducer: upsertRecords as (
          state: Record<string, unknown>,
          writes: unknown[],
        ) => Record<string, unknown>,
        snapshotFrequency: options.snapshotFrequency ?? 500,
      },
    ) as unknown as StateSchemaField,
    [COMPRESSION_KEYS.requirements]: skeletonSchema,
    [COMPRESSION_KEYS.artifacts]: skeletonSchema,
    [COMPRESSION_KEYS.session]: CompressionSessionSchema.nullable().default(null),
    [COMPRESSION_KEYS.coordination]: CoordinationStateSchema.nullable().default(null),
  };
}

/**
 * A Blackboard extended with the compression fields (the documented application-extension
 * path of `createBlackboard`). Pass it to the process (`blackboard`) and to every
 * `StateBuilder` that reads or writes compression state.
 * @example const blackboard = createCompressionBlackboard(); createDynamicProcess({ blackboard, … })
 */
export function createCompressionBlackboard(options: BlackboardOptions = {}) {
  return createBlackboard({
    ...options,
    extensions: {
      ...compressionExtensions(
        options.snapshotFrequency === undefined ? {} : { snapshotFrequency: options.snapshotFrequency },
      ),
      ...options.extensions,
    },
  });
}
