import type { ArtifactEntry, ArtifactStoreState } from './artifact-schema.ts';

/** Input of {@link invalidateArtifact}: an artifact id (`<kind>:<name>@v<n>`) or key (`<kind>:<name>`, its active version). */
export interface InvalidateArtifactInput {
  artifactId: string;
  reason: string;
  turnIndex: number;
}

/** Result: `invalidated`, or why not (`not-found`, `already-invalidated`) — data, not errors. */
export type InvalidateArtifactResult =
  | { status: 'invalidated'; state: ArtifactStoreState; entry: ArtifactEntry }
  | { status: 'not-found' | 'already-invalidated'; state: ArtifactStoreState };

/**
 * Marks an artifact version invalid (e.g. the user changed a requirement it was built on).
 * The entry and its content stay addressable; views show it as invalidated. Pure.
 */
export function invalidateArtifact(
  state: ArtifactStoreState,
  input: InvalidateArtifactInput,
): InvalidateArtifactResult {
  const target =
    state.index.artifacts.find((entry) => entry.id === input.artifactId) ??
    state.index.artifacts.find((entry) => entry.key === input.artifactId && entry.status === 'active');
  if (target === undefined) return { status: 'not-found', state };
  if (target.status === 'invalidated') return { status: 'already-invalidated', state };
  const entry: ArtifactEntry = {
    ...target,
    status: 'invalidated',
    invalidation: { reason: input.reason, turnIndex: input.turnIndex },
  };
  const artifacts = state.index.artifacts.map((existing) => (existing.id === target.id ? entry : existing));
  return { status: 'invalidated', entry, state: { ...state, index: { ...state.index, artifacts } } };
}
