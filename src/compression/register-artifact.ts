import { CtxloomError, type JsonValue } from '../core/index.ts';
import { clip, digestContent } from './artifact-content.ts';
import {
  type ArtifactEntry,
  type ArtifactKind,
  ArtifactKindSchema,
  type ArtifactStoreState,
  type KeyFieldValue,
} from './artifact-schema.ts';

/** Input of {@link registerArtifact}. */
export interface RegisterArtifactInput {
  kind: ArtifactKind;
  /** Logical name within its kind, e.g. a job or table name; versions share it. */
  name: string;
  /** The agent that produced it. */
  agentId: string;
  /** SQL, Markdown or any text; or a JSON value (hashed as canonical JSON). Kept outside the index. */
  content: string | JsonValue;
  /** Short facts shown in views; strings are clipped to 80 characters, at most 12 fields. */
  keyFields?: Record<string, KeyFieldValue>;
  turnIndex: number;
  /** Put the artifact in the focus list (shown first among jobs). Default false. */
  focus?: boolean;
}

/** Options shared by the artifact functions. */
export interface ArtifactOptions {
  /** Milliseconds since the epoch. Default `Date.now`. */
  clock?: () => number;
  /** Longest preview kept in the index, in characters. Default 160, range ≥ 16. */
  previewChars?: number;
}

/** Result: `registered` a new version, or `unchanged` when the active version has the same hash. */
export interface RegisterArtifactResult {
  status: 'registered' | 'unchanged';
  state: ArtifactStoreState;
  entry: ArtifactEntry;
}

const MAX_KEY_FIELDS = 12;

/**
 * Registers an agent output (seed 004 §2.2): the raw content goes to `state.contents` under the
 * new id, the index gets version, status, sha256, length, key fields and a bounded preview.
 * A new version supersedes the active one of the same `<kind>:<name>`; re-registering the
 * same content is a no-op. Pure: returns a new state.
 */
export function registerArtifact(
  state: ArtifactStoreState,
  input: RegisterArtifactInput,
  options: ArtifactOptions = {},
): RegisterArtifactResult {
  if (!ArtifactKindSchema.safeParse(input.kind).success) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: `bad artifact kind "${input.kind}"`,
      path: 'kind',
    });
  }
  const previewChars = options.previewChars ?? 160;
  const digest = digestContent(input.kind, input.content, previewChars);
  const key = `${input.kind}:${input.name}`;
  const versions = state.index.artifacts.filter((entry) => entry.key === key);
  const active = versions.find((entry) => entry.status === 'active');
  if (active !== undefined && active.sha256 === digest.sha256)
    return { status: 'unchanged', state, entry: active };
  const version = versions.reduce((max, entry) => Math.max(max, entry.version), 0) + 1;
  const keyFields: Record<string, KeyFieldValue> = {};
  for (const [field, value] of Object.entries({ ...digest.derivedFields, ...input.keyFields }).slice(
    0,
    MAX_KEY_FIELDS,
  )) {
    keyFields[field] = typeof value === 'string' ? clip(value, 80) : value;
  }
  const entry: ArtifactEntry = {
    id: `${key}@v${version}`,
    key,
    kind: input.kind,
    name: input.name,
    agentId: input.agentId,
    version,
    status: 'active',
    sha256: digest.sha256,
    length: digest.length,
    keyFields,
    preview: digest.preview,
    turnIndex: input.turnIndex,
    createdAt: (options.clock ?? Date.now)(),
  };
  const artifacts = state.index.artifacts.map((existing) =>
    existing.key === key && existing.status === 'active'
      ? { ...existing, status: 'superseded' as const }
      : existing,
  );
  const focus =
    input.focus === true && !state.index.focus.includes(key)
      ? [...state.index.focus, key]
      : state.index.focus;
  return {
    status: 'registered',
    entry,
    state: {
      index: { ...state.index, artifacts: [...artifacts, entry], focus },
      contents: { ...state.contents, [entry.id]: digest.text },
    },
  };
}
