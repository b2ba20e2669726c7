import type { ArtifactStoreState } from './artifact-schema.ts';
import type { ThreadId } from './thread-id.ts';

/** An empty artifact index for one session. */
export function createArtifactStoreState(options: { threadId: ThreadId }): ArtifactStoreState {
  return {
    index: { version: 1, threadId: options.threadId, artifacts: [], evidence: [], focus: [] },
    contents: {},
  };
}

/** The raw content of an artifact version, from state (never from the index). */
export function readArtifactContent(state: ArtifactStoreState, artifactId: string): string | undefined {
  return state.contents[artifactId];
}
