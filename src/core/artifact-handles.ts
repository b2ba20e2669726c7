import { BoundedMap } from './bounded-map.ts';
import { CtxloomError } from './errors.ts';
import { hashText } from './fingerprint.ts';

/**
 * A tool output kept outside the prompt (seed 004's artifact index: hash, length, preview).
 * The prompt carries a placeholder naming `handle`; the model re-opens it with the
 * `open_artifact` tool ({@link readArtifact}).
 */
export interface ArtifactHandle {
  /** `art_<hash>`: derived from the content, so the same output always gets the same handle. */
  handle: string;
  /** Content hash (cyrb53, 14 hex digits). */
  hash: string;
  /** Content length in UTF-16 code units. */
  length: number;
  /** The first characters, whitespace collapsed. */
  preview: string;
  toolName: string;
}

/** Where tool outputs replaced by placeholders are kept, by handle. */
export interface ArtifactHandleStore {
  /** Keeps `content` and returns its handle (idempotent: equal content, equal handle). */
  put(input: { content: string; toolName: string; previewChars?: number }): ArtifactHandle;
  /** The content behind `handle`, or undefined when unknown (or evicted). */
  get(handle: string): string | undefined;
  /** The index entry of `handle`. */
  describe(handle: string): ArtifactHandle | undefined;
}

/** Options of {@link createInMemoryArtifactStore}. */
export interface InMemoryArtifactStoreOptions {
  /** Most artifacts kept; the least recently put are evicted first. Default 1 000, range ≥ 1. */
  maxEntries?: number;
  /** Most UTF-16 code units kept in all. Default 32 Mi. */
  maxCharacters?: number;
}

/** An in-memory {@link ArtifactHandleStore}, bounded by entries and characters. */
export function createInMemoryArtifactStore(options: InMemoryArtifactStoreOptions = {}): ArtifactHandleStore {
  const maxEntries = options.maxEntries ?? 1000;
  const maxCharacters = options.maxCharacters ?? 32 * 1024 * 1024;
  if (!Number.isInteger(maxEntries) || maxEntries < 1) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: 'maxEntries must be an integer ≥ 1',
      path: 'maxEntries',
    });
  }
  const entries = new BoundedMap<string, { content: string; entry: ArtifactHandle }>(
    maxEntries,
    maxCharacters,
  );
  const keep = (entry: ArtifactHandle, content: string): ArtifactHandle => {
    // Known: only its place in the eviction order is refreshed.
    const known = entries.get(entry.handle);
    if (known !== undefined) return known.entry;
    entries.set(entry.handle, { content, entry }, content.length);
    return entry;
  };
  const store: ArtifactHandleStore = {
    put: ({ content, toolName, previewChars }) =>
      keep(
        describeArtifact({ content, toolName, ...(previewChars === undefined ? {} : { previewChars }) }),
        content,
      ),
    get: (handle) => entries.peek(handle)?.content,
    describe: (handle) => entries.peek(handle)?.entry,
  };
  described.set(store, keep);
  return store;
}

/** The in-memory stores, each with how it keeps a content already described. */
const described = new WeakMap<
  ArtifactHandleStore,
  (entry: ArtifactHandle, content: string) => ArtifactHandle
>();

/**
 * `content`, described as `entry` when it was put in another store, put in `store` again (as
 * `put` with the same content, tool and preview length would): an in-memory store takes the
 * entry as it is, any other store is handed the content.
 */
export function putDescribed(
  store: ArtifactHandleStore,
  entry: ArtifactHandle,
  content: string,
  previewChars: number | undefined,
): void {
  const keep = described.get(store);
  if (keep !== undefined) keep(entry, content);
  else
    store.put({ content, toolName: entry.toolName, ...(previewChars === undefined ? {} : { previewChars }) });
}

/** Contents from which {@link contentHash} remembers the hash (a shorter one hashes as fast as it is looked up). */
const REMEMBERED_FROM_CHARACTERS = 1024;
/** The hashes {@link contentHash} remembers: at most this many contents, of 32 Mi UTF-16 code units in all. */
const REMEMBERED_CHARACTERS = 32 * 1024 * 1024;
const rememberedHashes = new BoundedMap<string, string>(2048, REMEMBERED_CHARACTERS);

/**
 * The content's hash, remembered for long contents: every call of a long tool session keeps its
 * earlier outputs as artifacts again (each agent call has its own store), and hashing each
 * output at every call made a call's cost grow with the session (decision 078's amendments).
 */
function contentHash(content: string): string {
  if (content.length < REMEMBERED_FROM_CHARACTERS) return hashText(content);
  let hash = rememberedHashes.get(content);
  if (hash === undefined) {
    hash = hashText(content);
    // One content of a quarter of the bound or more would push the others out: not remembered.
    if (content.length < REMEMBERED_CHARACTERS / 4) rememberedHashes.set(content, hash, content.length);
  }
  return hash;
}

/** The index entry of a content, without storing it. */
export function describeArtifact(input: {
  content: string;
  toolName: string;
  previewChars?: number;
}): ArtifactHandle {
  const hash = contentHash(input.content);
  const previewChars = Math.max(16, input.previewChars ?? 160);
  const flat = input.content
    .slice(0, previewChars * 2)
    .replace(/\s+/gu, ' ')
    .trim();
  return {
    handle: `art_${hash}`,
    hash,
    length: input.content.length,
    preview: flat.length > previewChars ? `${flat.slice(0, previewChars - 1)}…` : flat,
    toolName: input.toolName,
  };
}

/** The name of the tool that re-opens an artifact. */
export const OPEN_ARTIFACT_TOOL = 'open_artifact';

/**
 * The placeholder text that stands for a tool output kept as an artifact: what it is, how
 * big, a preview, and how to read it — by pages with `open_artifact`, or as `parts` says
 * (e.g. `read_file` line ranges). `brief`: only what it is, how big and the pages.
 */
export function artifactPlaceholder(
  entry: ArtifactHandle,
  detail: { tokens?: number; parts?: string; brief?: boolean } = {},
): string {
  const size =
    detail.tokens === undefined ? `${entry.length} chars` : `${entry.length} chars, ${detail.tokens} tokens`;
  // Brief (a call with little room): the handle and how to read it, no preview.
  if (detail.brief === true)
    return `[${entry.toolName} output kept as artifact ${entry.handle} (${size}) — call ${OPEN_ARTIFACT_TOOL} with {"handle":"${entry.handle}"} to read it page by page.]`;
  const parts = detail.parts === undefined ? '' : `; or ${detail.parts}`;
  return `[${entry.toolName} output kept as artifact ${entry.handle} (${size}, hash ${entry.hash}). Preview: ${entry.preview} — call ${OPEN_ARTIFACT_TOOL} with {"handle":"${entry.handle}"} to read it page by page (each page fits the call and says where the next starts)${parts}.]`;
}

/**
 * The runtime-neutral definition of the `open_artifact` tool (a JSON schema), for any tool
 * loop; `ctxloom/ai-sdk` wraps it as an AI SDK tool.
 */
export const OPEN_ARTIFACT_DEFINITION = {
  name: OPEN_ARTIFACT_TOOL,
  description:
    'Read a tool output that was kept out of the prompt as an artifact (its placeholder names the handle), one page at a time. A page fits the room the conversation has left; its first line gives the range and the arguments for the next page.',
  inputSchema: {
    type: 'object',
    properties: {
      handle: { type: 'string', description: 'The artifact handle, e.g. art_0123456789abcd' },
      offset: {
        type: 'integer',
        minimum: 0,
        description: 'First character to return (the next page offset of the previous page); default 0',
      },
      maxTokens: {
        type: 'integer',
        minimum: 1,
        description: 'Most tokens the page may take; default the room left',
      },
    },
    required: ['handle'],
    additionalProperties: false,
  },
} as const;
