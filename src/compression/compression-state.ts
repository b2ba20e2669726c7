import { z } from 'zod';
import { ArtifactStoreStateSchema } from './artifact-schema.ts';
import { createArtifactStoreState } from './create-artifact-store-state.ts';
import { createRequirementTodoState, RequirementTodoStateSchema } from './requirement-todo-state.ts';
import { isThreadId, type ThreadId } from './thread-id.ts';

/** What `/compress` asked for: requirements, artifacts, or both. */
export const CompressScopeSchema = z.enum(['all', 'requirement', 'artifacts']);
/** A value of {@link CompressScopeSchema}. */
export type CompressScope = z.infer<typeof CompressScopeSchema>;

/**
 * Everything this module keeps for one session, saved as one value (`version` 1) under its
 * thread id: the two-layer TODO, the artifact index with raw contents, and the manual
 * clipping switch. `revision` is the optimistic-concurrency counter of the store.
 */
export const CompressionStateSchema = z.object({
  version: z.literal(1),
  threadId: z.string().refine(isThreadId, 'thread id must look like <app>:user:<userId>:session:<sessionId>'),
  revision: z.number().int().min(0),
  requirements: RequirementTodoStateSchema,
  artifacts: ArtifactStoreStateSchema,
  /** Set by `/compress`: every later payload of the session is clipped to budget. */
  forceContextClipping: z.boolean(),
  /** Scope of the last `/compress`, `null` when never used. */
  clippingScope: CompressScopeSchema.nullable(),
});
/** A value of {@link CompressionStateSchema}. */
export type CompressionState = z.infer<typeof CompressionStateSchema>;

/** An empty state for a session at revision 0. */
export function createCompressionState(options: { threadId: ThreadId }): CompressionState {
  return {
    version: 1,
    threadId: options.threadId,
    revision: 0,
    requirements: createRequirementTodoState(options),
    artifacts: createArtifactStoreState(options),
    forceContextClipping: false,
    clippingScope: null,
  };
}
