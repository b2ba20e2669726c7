import { CtxloomError } from '../core/index.ts';
import type { ArtifactEntry, ArtifactStoreState, ToolEvidence } from './artifact-schema.ts';
import {
  type ArtifactContextView,
  type ArtifactContextViewOptions,
  buildArtifactContextView,
} from './build-artifact-context-view.ts';
import { createArtifactStoreState } from './create-artifact-store-state.ts';
import {
  type InvalidateArtifactInput,
  type InvalidateArtifactResult,
  invalidateArtifact,
} from './invalidate-artifact.ts';
import { type ArtifactOptions, type RegisterArtifactInput, registerArtifact } from './register-artifact.ts';
import { type RegisterToolEvidenceInput, registerToolEvidence } from './register-tool-evidence.ts';
import type { ThreadId } from './thread-id.ts';

/**
 * The per-session artifact index of seed 004 (`ArtifactStore(session_id)`), as a small
 * mutable facade over the pure functions. `state()` is the serialisable value to persist
 * (through a `CompressionStore` or the agent state); `content(id)` reads raw content back.
 */
export interface ArtifactStore {
  readonly threadId: ThreadId;
  registerArtifact(input: RegisterArtifactInput): {
    status: 'registered' | 'unchanged';
    entry: ArtifactEntry;
  };
  registerToolEvidence(input: RegisterToolEvidenceInput): ToolEvidence;
  invalidateArtifact(input: InvalidateArtifactInput): InvalidateArtifactResult['status'];
  buildArtifactContextView(options: ArtifactContextViewOptions): ArtifactContextView;
  /** Raw content of a version (JSON as canonical JSON text). */
  content(artifactId: string): string | undefined;
  state(): ArtifactStoreState;
}

/** Options of {@link createArtifactStore}. */
export interface CreateArtifactStoreOptions extends ArtifactOptions {
  threadId: ThreadId;
  /** State to resume from (must belong to `threadId`); default empty. */
  initial?: ArtifactStoreState;
}

/** Creates an {@link ArtifactStore} for one session. */
export function createArtifactStore(options: CreateArtifactStoreOptions): ArtifactStore {
  let current = options.initial ?? createArtifactStoreState({ threadId: options.threadId });
  if (current.index.threadId !== options.threadId) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: `artifact state belongs to ${current.index.threadId}, not ${options.threadId}`,
      path: 'initial.index.threadId',
    });
  }
  return {
    threadId: options.threadId,
    registerArtifact(input) {
      const result = registerArtifact(current, input, options);
      current = result.state;
      return { status: result.status, entry: result.entry };
    },
    registerToolEvidence(input) {
      const result = registerToolEvidence(current, input, options);
      current = result.state;
      return result.evidence;
    },
    invalidateArtifact(input) {
      const result = invalidateArtifact(current, input);
      current = result.state;
      return result.status;
    },
    buildArtifactContextView: (viewOptions) => buildArtifactContextView(current.index, viewOptions),
    content: (artifactId) => current.contents[artifactId],
    state: () => current,
  };
}
