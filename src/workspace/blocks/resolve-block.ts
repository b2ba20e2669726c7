import { CtxloomError } from '../../core/index.ts';
import type { Block } from './block.ts';
import { splitBlockId } from './block-path.ts';
import { flattenBlocks, getBlockById } from './flatten-blocks.ts';
import { similarity, similarityBound, similarityCost } from './similarity.ts';

/** How {@link resolveBlock} found its block. */
export type BlockMatch = 'id' | 'short-id' | 'closest';

/** A resolved block; `warning` is set when the id was not found and the closest block was used. */
export interface ResolvedBlock {
  block: Block;
  match: BlockMatch;
  warning?: string;
}

/** Options of {@link resolveBlock}. */
export interface ResolveBlockOptions {
  /** File name used in messages and errors. */
  file: string;
  /** Lowest similarity (0..1) accepted for the closest-match fallback. Default 0.6. */
  minSimilarity?: number;
  /** When false, a missing id is an error even if a close block exists. Default true. */
  fallback?: boolean;
  /**
   * Work shared by several lookups (all references of one message): the closest-block search
   * spends from it, and once it is spent a missing id is `not-found` without a search.
   * Default: none (each search is bounded by {@link DEFAULT_CLOSEST_BLOCK_WORK} alone).
   */
  budget?: BlockSearchBudget;
  /** The blocks by V1 id and V2 short id ({@link indexBlocks}), when several ids are looked up in them. */
  index?: ReadonlyMap<string, Block>;
}

/**
 * The blocks of a tree by V1 id and V2 short id, the first in document order winning (as
 * `getBlockById` finds them): one pass, so many lookups in one file cost one flatten.
 */
export function indexBlocks(blocks: readonly Block[]): Map<string, Block> {
  const index = new Map<string, Block>();
  for (const block of flattenBlocks(blocks)) {
    if (!index.has(block.id)) index.set(block.id, block);
    if (block.shortId !== undefined && !index.has(block.shortId)) index.set(block.shortId, block);
  }
  return index;
}

/** Longest id {@link resolveBlock} searches for a closest block, in UTF-16 units. */
export const MAX_FUZZY_BLOCK_ID_CHARS = 500;

/**
 * Default work limit of one closest-block search, in 32-bit word operations of the distance
 * (see `similarityCost`): about 30 000 blocks of 30-character headings, or 250 of 500-character
 * ones; about 0.1–0.25 s at worst.
 */
export const DEFAULT_CLOSEST_BLOCK_WORK = 2_000_000;

/** Closest-block search work left for a batch of lookups (see {@link createBlockSearchBudget}). */
export interface BlockSearchBudget {
  /** Word operations left, ≥ 0. */
  remainingWork: number;
}

/**
 * Default closest-block work of one message's references together: two full searches' worth
 * ({@link DEFAULT_CLOSEST_BLOCK_WORK} each), about 0.2–0.5 s at worst. Without it, 300 missing
 * block ids in one message searched a 20,000-heading file 300 times (17 s; issue #27).
 */
export const DEFAULT_MESSAGE_CLOSEST_BLOCK_WORK = 2 * DEFAULT_CLOSEST_BLOCK_WORK;

/** A {@link BlockSearchBudget} of `maxWork` word operations (default {@link DEFAULT_MESSAGE_CLOSEST_BLOCK_WORK}). */
export function createBlockSearchBudget(maxWork = DEFAULT_MESSAGE_CLOSEST_BLOCK_WORK): BlockSearchBudget {
  return { remainingWork: Math.max(0, maxWork) };
}

/** Result of {@link findClosestBlock}. */
export interface ClosestBlock {
  block: Block;
  /** Similarity in 0..1. */
  score: number;
  /** Word operations spent, never more than `maxWork`. */
  work: number;
  /** False when the work limit stopped the search before the last block. */
  complete: boolean;
}

/**
 * The block most similar to `id` (by full path, then by last heading segment, × 0.9), with its
 * score. Blocks whose length alone rules out beating the best so far are skipped; the search
 * stops before a comparison would exceed `maxWork` word operations (default
 * {@link DEFAULT_CLOSEST_BLOCK_WORK}) and says so in `complete`.
 */
export function findClosestBlock(
  blocks: readonly Block[],
  id: string,
  options: { maxWork?: number } = {},
): ClosestBlock | undefined {
  const maxWork = options.maxWork ?? DEFAULT_CLOSEST_BLOCK_WORK;
  const wanted = id.trim();
  const wantedLast = (splitBlockId(id).at(-1) ?? id).trim();
  let best: { block: Block; score: number } | undefined;
  let work = 0;
  let complete = true;
  const compare = (candidate: string, target: string, weight: number): number | undefined => {
    const bound = similarityBound(candidate.length, target.length) * weight;
    if (best !== undefined && bound <= best.score) return 0;
    const cost = similarityCost(candidate, target);
    if (work + cost > maxWork) return undefined;
    work += cost;
    return similarity(candidate, target) * weight;
  };
  for (const block of flattenBlocks(blocks)) {
    const byPath = compare(block.id.trim(), wanted, 1);
    const byLast =
      byPath === undefined
        ? undefined
        : compare((splitBlockId(block.id).at(-1) ?? block.id).trim(), wantedLast, 0.9);
    if (byPath === undefined || byLast === undefined) {
      complete = false;
      break;
    }
    const score = Math.max(byPath, byLast);
    if (best === undefined || score > best.score) best = { block, score };
  }
  return best === undefined ? undefined : { ...best, work, complete };
}

/**
 * Finds a block by V1 id or V2 short id; when neither matches (a renamed heading), falls back
 * to the closest block above `minSimilarity` and says so in `warning`. Throws `not-found`
 * naming the file and id, with the closest existing id in the message and `details.closest`.
 * An id over {@link MAX_FUZZY_BLOCK_ID_CHARS} that matches nothing exactly throws `too-large`
 * without a fuzzy search, and the search itself is bounded (see {@link findClosestBlock}), and
 * by `budget` when one is shared: once it is spent, a missing id is `not-found` with no search.
 */
export function resolveBlock(
  blocks: readonly Block[],
  id: string,
  options: ResolveBlockOptions,
): ResolvedBlock {
  const exact = options.index === undefined ? getBlockById(blocks, id) : options.index.get(id);
  if (exact !== undefined) return { block: exact, match: exact.id === id ? 'id' : 'short-id' };
  if (id.length > MAX_FUZZY_BLOCK_ID_CHARS)
    throw new CtxloomError({
      code: 'too-large',
      message: `block id of ${id.length} characters not found in ${options.file}; ids over ${MAX_FUZZY_BLOCK_ID_CHARS} characters are matched exactly only`,
      file: options.file,
      path: `${id.slice(0, 80)}…`,
    });
  const budget = options.budget;
  if (budget !== undefined && budget.remainingWork <= 0)
    throw new CtxloomError({
      code: 'not-found',
      message: `block "${id}" not found in ${options.file} (no closest-block search: the work limit of this batch of lookups is spent)`,
      file: options.file,
      path: id,
      details: { block: id, searchSkipped: true },
    });
  const closest = findClosestBlock(
    blocks,
    id,
    budget === undefined ? {} : { maxWork: Math.min(DEFAULT_CLOSEST_BLOCK_WORK, budget.remainingWork) },
  );
  // A search cut short by the shared limit spends it: later lookups of the batch skip theirs.
  if (budget !== undefined)
    budget.remainingWork =
      closest?.complete === false || (closest === undefined && blocks.length > 0)
        ? 0
        : budget.remainingWork - (closest?.work ?? 0);
  const minSimilarity = options.minSimilarity ?? 0.6;
  if (closest !== undefined && options.fallback !== false && closest.score >= minSimilarity) {
    return {
      block: closest.block,
      match: 'closest',
      warning: `block "${id}" not found in ${options.file}; using closest block "${closest.block.id}" (similarity ${closest.score.toFixed(2)}${closest.complete ? '' : ', search stopped at its work limit'})`,
    };
  }
  const hint =
    closest !== undefined
      ? `; closest block is "${closest.block.id}"`
      : blocks.length === 0
        ? ' (the file has no blocks)'
        : ' (no closest block searched within the work limit)';
  throw new CtxloomError({
    code: 'not-found',
    message: `block "${id}" not found in ${options.file}${hint}`,
    file: options.file,
    path: id,
    details:
      closest === undefined
        ? { block: id, ...(blocks.length > 0 ? { searchSkipped: true } : {}) }
        : { block: id, closest: closest.block.id, similarity: closest.score },
  });
}
