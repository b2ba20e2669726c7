import type { Message } from '../../core/index.ts';
import type { Block } from '../blocks/block.ts';
import { type BlockSearchBudget, createBlockSearchBudget, indexBlocks } from '../blocks/resolve-block.ts';
import type { ConfigReference } from '../config/context-config-schema.ts';
import {
  type BadReference,
  type BadReferenceSite,
  emptyRangeReference,
  invalidReferenceError,
  toBadReference,
} from '../references/bad-reference.ts';
import { scanReferences } from '../references/parse-references.ts';
import { formatReference, type Reference } from '../references/reference.ts';
import {
  type LoadedFile,
  type ResolvedReference,
  resolveReference,
} from '../references/resolve-reference.ts';

/** Result of {@link mergeReferences}. */
export interface MergedQuery {
  /** The user message: the query, then every referenced passage. */
  text: string;
  resolved: ResolvedReference[];
  /** Keys ({@link manifestReferenceKey}) of the manifest references attached to this message. */
  attached: string[];
  warnings: string[];
}

/** A manifest reference as a {@link Reference}. */
export function toReference(reference: ConfigReference): Reference {
  return 'block' in reference
    ? { type: 'block', path: reference.path, block: reference.block }
    : { type: 'lines', path: reference.path, startLine: reference.startLine, endLine: reference.endLine };
}

/** The key a manifest reference is recorded under once sent: its written form, `[path:s:e]` or `[path#block]`. */
export function manifestReferenceKey(reference: ConfigReference): string {
  return formatReference(toReference(reference));
}

/**
 * Keys of the manifest references already sent, read from `metadata.manifestReferences` of
 * the stored messages. `exceptId` is the message being compiled: a recompile of a stored
 * turn (a later model step) still carries what that turn attached.
 */
export function deliveredManifestReferences(history: readonly Message[], exceptId?: string): Set<string> {
  const delivered = new Set<string>();
  for (const message of history) {
    if (message.id === exceptId) continue;
    const keys = message.metadata?.manifestReferences;
    if (Array.isArray(keys)) for (const key of keys) if (typeof key === 'string') delivered.add(key);
  }
  return delivered;
}

/** The paths of the files a query and explicit references need loaded. */
export function referencedPaths(query: string, references: readonly ConfigReference[]): string[] {
  return [
    ...new Set(
      [...scanReferences(query).references, ...references.map(toReference)].map(
        (reference) => reference.path,
      ),
    ),
  ];
}

/** Options of {@link mergeReferences}. */
export interface MergeReferencesOptions {
  query: string;
  /** The manifest's `references`. */
  references: readonly ConfigReference[];
  lookup: (path: string) => LoadedFile | undefined;
  /** Keys of manifest references already sent with an earlier message: not attached again. */
  delivered?: ReadonlySet<string>;
  /** Errors of referenced files that could not be loaded, by path (missing, outside the session…). */
  failures?: ReadonlyMap<string, unknown>;
  /** Closest-block work all the references share; default `createBlockSearchBudget()`. */
  budget?: BlockSearchBudget;
}

/**
 * Stage 3 of the workspace compiler (seed 003 "Merge References"): resolves the inline
 * references of the query and the manifest's pending ones (those not in `delivered`), and
 * appends each passage once to the user message in a `<reference>` element that names its
 * file and lines. A passage is sent once: the same reference written twice, a block and a
 * line range that resolve to the same lines, or a range inside another reference's range of
 * the same file. When any reference cannot be resolved, throws one `invalid-reference` error
 * listing every one (see `invalidReferenceError`). The closest-block searches of all the
 * references share one work limit (`DEFAULT_MESSAGE_CLOSEST_BLOCK_WORK`), so a message of
 * many missing block ids costs a few searches, not one each. Pure.
 * @example
 * mergeReferences({ query: '这段是什么意思 [guidance.md:12:30]', references: [], lookup }).text
 * // → '这段是什么意思 [guidance.md:12:30]\n\n<reference source="guidance.md:12-30">\n…\n</reference>'
 */
export function mergeReferences(options: MergeReferencesOptions): MergedQuery {
  const scanned = scanReferences(options.query);
  const entries: { reference: Reference; site: BadReferenceSite; key?: string }[] = [
    ...scanned.references.map(({ raw, offset, ...reference }) => ({
      reference: reference as Reference,
      site: { source: 'message' as const, raw, offset },
    })),
    ...options.references.flatMap((entry, index) => {
      const key = manifestReferenceKey(entry);
      if (options.delivered?.has(key)) return [];
      return [{ reference: toReference(entry), site: { source: 'manifest' as const, raw: key, index }, key }];
    }),
  ];
  const bad: BadReference[] = scanned.emptyRanges.map(emptyRangeReference);
  const outcomes = new Map<string, ResolvedReference | ((site: BadReferenceSite) => BadReference)>();
  const resolved: ResolvedReference[] = [];
  const attached: string[] = [];
  const warnings: string[] = [];
  const budget = options.budget ?? createBlockSearchBudget();
  // Each file's blocks are indexed once, however many references name it.
  const indexes = new Map<string, Map<string, Block>>();
  const index = (file: LoadedFile): Map<string, Block> => {
    let found = indexes.get(file.path);
    if (found === undefined) {
      found = indexBlocks(file.blocks ?? []);
      indexes.set(file.path, found);
    }
    return found;
  };
  for (const { reference, site, key } of entries) {
    const written = formatReference(reference);
    let outcome = outcomes.get(written);
    if (outcome === undefined) {
      try {
        if (options.failures?.has(reference.path)) throw options.failures.get(reference.path);
        const result = resolveReference(reference, options.lookup, { budget, index });
        if (result.warning !== undefined) warnings.push(result.warning);
        resolved.push(result);
        outcome = result;
      } catch (error) {
        toBadReference(reference, site, error); // rethrows what is not about the reference
        outcome = (at) => toBadReference(reference, at, error);
      }
      outcomes.set(written, outcome);
    }
    if (typeof outcome === 'function') bad.push(outcome(site));
    else if (key !== undefined) attached.push(key);
  }
  if (bad.length > 0) {
    bad.sort((a, b) => order(a) - order(b));
    throw invalidReferenceError(bad);
  }
  const sent = dropCovered(resolved);
  const passages = sent.map((reference) => {
    const block = reference.blockId === undefined ? '' : ` block="${escapeAttribute(reference.blockId)}"`;
    return `<reference source="${escapeAttribute(reference.path)}:${reference.startLine}-${reference.endLine}"${block}>\n${reference.text}\n</reference>`;
  });
  const text = [options.query.trim(), ...passages].filter((part) => part !== '').join('\n\n');
  return { text, resolved: sent, attached, warnings };
}

/** Message references by offset first, then the manifest's by index. */
function order(reference: BadReference): number {
  return reference.source === 'message' ? (reference.offset ?? 0) : 2 ** 40 + (reference.index ?? 0);
}

/** Keeps each passage once: a reference whose lines lie inside another's (same file) is left out. */
function dropCovered(resolved: readonly ResolvedReference[]): ResolvedReference[] {
  const kept: ResolvedReference[] = [];
  for (const candidate of resolved) {
    if (kept.some((other) => covers(other, candidate))) continue;
    const at = kept.findIndex((other) => covers(candidate, other));
    if (at < 0) {
      kept.push(candidate);
      continue;
    }
    // A wider reference replaces the first one it covers, in its place, and any others.
    const rest = kept.filter((other, index) => index > at && !covers(candidate, other));
    kept.splice(at, kept.length - at, candidate, ...rest);
  }
  return kept;
}

function covers(outer: ResolvedReference, inner: ResolvedReference): boolean {
  return outer.path === inner.path && outer.startLine <= inner.startLine && inner.endLine <= outer.endLine;
}

function escapeAttribute(value: string): string {
  return value.replace(/&/gu, '&amp;').replace(/"/gu, '&quot;').replace(/</gu, '&lt;');
}
