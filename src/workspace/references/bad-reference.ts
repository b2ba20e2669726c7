import { CtxloomError } from '../../core/index.ts';
import { shorten } from '../../core/shorten.ts';
import { mapFsError } from '../sandbox/map-fs-error.ts';
import type { Reference } from './reference.ts';

/**
 * Why a reference cannot be resolved:
 * - `missing-file` — the session has no such file (nor a global file of that name);
 * - `outside-session` — the path leaves the session's readable files (`../other/x.md`, a symlink out);
 * - `lines-out-of-range` — the lines are past the end of the file (`lineCount` says its length);
 * - `empty-range` — the line range is empty or reversed (`[a.md:30:12]`, `[a.md:0:1]`);
 * - `missing-block` — no block of that id, nor one close enough (`closestBlock` names the nearest);
 * - `too-large` — the file or the block id exceeds a documented limit;
 * - `unreadable` — the file exists but cannot be read as text (a folder, bad JSON, too deep).
 */
export type BadReferenceReason =
  | 'missing-file'
  | 'outside-session'
  | 'lines-out-of-range'
  | 'empty-range'
  | 'missing-block'
  | 'too-large'
  | 'unreadable';

/** One reference of a message (or of the manifest's pending `references`) that cannot be resolved. */
export interface BadReference {
  /** As written in the message (`[nope.md:1:3]`); manifest entries in their written form. */
  raw: string;
  /** `message`: inline in the text being sent (or previewed); `manifest`: `context-config.json`'s `references`. */
  source: 'message' | 'manifest';
  /** UTF-16 offset of `[` in the message as sent (trimmed); message references only. */
  offset?: number;
  /** Position in the manifest's `references` array; manifest references only. */
  index?: number;
  path: string;
  /** The line range, for line references (1-based, inclusive). */
  startLine?: number;
  endLine?: number;
  /** The block id, for block references. */
  block?: string;
  reason: BadReferenceReason;
  /** One English sentence saying what is wrong, naming the file (never a server path). */
  message: string;
  /** Lines of the file, for `lines-out-of-range`. */
  lineCount?: number;
  /** The nearest existing block, for `missing-block` when there is one. */
  closestBlock?: string;
}

/** Where a bad reference was written. */
export type BadReferenceSite =
  | { source: 'message'; raw: string; offset: number }
  | { source: 'manifest'; raw: string; index: number };

/**
 * Describes why `reference` failed, from the error its file's load or its resolution threw.
 * Errors that are not about the reference itself (a storage failure) are rethrown.
 */
export function toBadReference(reference: Reference, site: BadReferenceSite, thrown: unknown): BadReference {
  const error = mapFsError(thrown, reference.path);
  if (!CtxloomError.is(error) || error.code === 'storage-error') throw thrown;
  const base: BadReference = {
    raw: site.raw,
    source: site.source,
    ...(site.source === 'message' ? { offset: site.offset } : { index: site.index }),
    path: reference.path,
    ...(reference.type === 'lines'
      ? { startLine: reference.startLine, endLine: reference.endLine }
      : { block: reference.block }),
    reason: 'unreadable',
    message: `${reference.path} cannot be read: ${error.message}`,
  };
  const lineCount = error.details?.lineCount;
  const closest = error.details?.closest;
  if (error.code === 'path-escape')
    return {
      ...base,
      reason: 'outside-session',
      message: `${reference.path} is outside this session's files`,
    };
  if (error.code === 'too-large') return { ...base, reason: 'too-large', message: error.message };
  if (error.code !== 'not-found') return base;
  if (reference.type === 'lines' && typeof lineCount === 'number') {
    return {
      ...base,
      reason: 'lines-out-of-range',
      message: `lines ${writtenRange(site.raw, reference.startLine, reference.endLine)} are outside ${reference.path} (it has ${lineCount} lines)`,
      lineCount,
    };
  }
  if (reference.type === 'block' && error.details?.block !== undefined) {
    return {
      ...base,
      reason: 'missing-block',
      message:
        typeof closest === 'string'
          ? `block "${reference.block}" not found in ${reference.path}; closest block is "${closest}"`
          : error.details?.searchSkipped === true
            ? `block "${reference.block}" not found in ${reference.path} (no closest block searched: this message's search limit is spent)`
            : `block "${reference.block}" not found in ${reference.path}`,
      ...(typeof closest === 'string' ? { closestBlock: closest } : {}),
    };
  }
  return { ...base, reason: 'missing-file', message: `${reference.path} does not exist in this session` };
}

/** Digits of a written line number shown in a message; a longer one is cut with `…`. */
const SHOWN_DIGITS = 40;

/**
 * The line range of a reference as written (`[a.md:12:30]` → `12-30`, `[a.md:7]` → `7-7`): a
 * number past the safe integers is kept as its digits (up to {@link SHOWN_DIGITS}), not as the
 * largest one it was read as.
 */
function writtenRange(raw: string, startLine: number, endLine: number): string {
  const written = /:(\d+)(?::(\d+))?\]?$/u.exec(raw);
  const start = written?.[1] ?? String(startLine);
  const end = written?.[2] ?? (written === null ? String(endLine) : start);
  return `${shorten(start, SHOWN_DIGITS)}-${shorten(end, SHOWN_DIGITS)}`;
}

/** A line reference written with an empty or reversed range, as a {@link BadReference}. */
export function emptyRangeReference(reference: {
  path: string;
  startLine: number;
  endLine: number;
  raw: string;
  offset: number;
}): BadReference {
  return {
    raw: reference.raw,
    source: 'message',
    offset: reference.offset,
    path: reference.path,
    startLine: reference.startLine,
    endLine: reference.endLine,
    reason: 'empty-range',
    message: `${shorten(reference.raw)} has an empty line range (lines are 1-based and start ≤ end)`,
  };
}

/**
 * The one error for a message with references that cannot be resolved: code
 * `invalid-reference`, a message naming every one (one per line), and
 * `details.references` listing them as {@link BadReference}s, in the order written (the
 * message's, then the manifest's).
 */
export function invalidReferenceError(references: readonly BadReference[]): CtxloomError {
  const lines = references.map((reference) => {
    const where =
      reference.source === 'message'
        ? `at ${reference.offset}`
        : `context-config.json references[${reference.index}]`;
    // The reference as written, shortened: `raw` in the details keeps it whole (offsets, spans).
    return `  ${shorten(reference.raw)} (${where}): ${reference.message}`;
  });
  const count = references.length === 1 ? '1 reference' : `${references.length} references`;
  return new CtxloomError({
    code: 'invalid-reference',
    message: `${count} cannot be resolved:\n${lines.join('\n')}`,
    details: { references: [...references] },
  });
}

/** The bad references an `invalid-reference` error lists; `undefined` for any other value. */
export function badReferencesOf(error: unknown): BadReference[] | undefined {
  if (!CtxloomError.is(error, 'invalid-reference')) return undefined;
  const references = error.details?.references;
  return Array.isArray(references) ? (references as BadReference[]) : undefined;
}
