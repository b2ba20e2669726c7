import { DeltaValue, type StateSchemaField } from '@langchain/langgraph';
import { z } from 'zod';
import {
  ArtifactStoreStateSchema,
  CompressScopeSchema,
  isThreadId,
  RequirementTodoStateSchema,
} from '../../compression/index.ts';
import type { PendingRequest } from '../../routing/index.ts';
import { type BlackboardOptions, createBlackboard } from '../../state/index.ts';

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
});
/** A value of {@link CoordinationStateSchema} (requests typed as `ctxloom/routing`'s `PendingRequest`). */
export interface CoordinationState {
  pendingRequests: PendingRequest[];
  requestResults: { requestId: string; summary: string }[];
  userTurns: number;
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
  artifactContents: 'compression_artifact_contents',
  session: 'compression_session',
  coordination: 'compression_coordination',
} as const;

/** Raw artifact contents by artifact id: a delta channel, each write holds only new ids. */
const contentsSchema = z.record(z.string(), z.string());

/** Keep-first merge of content writes (an id's content never changes; batching-invariant). */
export function mergeArtifactContents(
  state: Record<string, string>,
  writes: readonly Record<string, string>[],
): Record<string, string> {
  let merged = state;
  for (const write of writes) {
    for (const [id, content] of Object.entries(write)) {
      if (id in merged) continue;
      if (merged === state) merged = { ...state };
      merged[id] = content;
    }
  }
  return merged;
}

/**
 * The Blackboard extension fields of {@link COMPRESSION_KEYS}: plain last-write-wins fields,
 * except the raw artifact contents — a delta channel, so a checkpoint stores each content
 * once instead of the whole map at every step. `snapshotFrequency` as in `createBlackboard`.
 */
export function compressionExtensions(
  options: { snapshotFrequency?: number } = {},
): Record<string, StateSchemaField> {
  return {
    [COMPRESSION_KEYS.artifactContents]: new DeltaValue(
      contentsSchema.default(() => ({})),
      {
        inputSchema: contentsSchema,
        reducer: mergeArtifactContents as (
          state: Record<string, string>,
          writes: unknown[],
        ) => Record<string, string>,
        snapshotFrequency: options.snapshotFrequency ?? 500,
      },
    ) as unknown as StateSchemaField,
    [COMPRESSION_KEYS.requirements]: RequirementTodoStateSchema.nullable().default(null),
    [COMPRESSION_KEYS.artifacts]: ArtifactStoreStateSchema.nullable().default(null),
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
