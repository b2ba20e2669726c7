import { CtxloomError } from '../../core/index.ts';
import type { Block } from './block.ts';
import { splitBlockId } from './block-path.ts';
import { flattenBlocks, getBlockById } from './flatten-blocks.ts';
import { similarity } from './similarity.ts';

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
}

/** The block most similar to `id` (by full path, then by last heading segment), with its score. */
export function findClosestBlock(
  blocks: readonly Block[],
  id: string,
): { block: Block; score: number } | undefined {
  const wantedLast = splitBlockId(id).at(-1) ?? id;
  let best: { block: Block; score: number } | undefined;
  for (const block of flattenBlocks(blocks)) {
    const byPath = similarity(block.id, id);
    const byLast = similarity(splitBlockId(block.id).at(-1) ?? block.id, wantedLast) * 0.9;
    const score = Math.max(byPath, byLast);
    if (best === undefined || score > best.score) best = { block, score };
  }
  return best;
}

/**
 * Finds a block by V1 id or V2 short id; when neither matches (a renamed heading), falls back
 * to the closest block above `minSimilarity` and says so in `warning`. Throws `not-found`
 * naming the file and id, with the closest existing id in the message and `details.closest`.
 */
export function resolveBlock(
  blocks: readonly Block[],
  id: string,
  options: ResolveBlockOptions,
): ResolvedBlock {
  const exact = getBlockById(blocks, id);
  if (exact !== undefined) return { block: exact, match: exact.id === id ? 'id' : 'short-id' };
  const closest = findClosestBlock(blocks, id);
  const minSimilarity = options.minSimilarity ?? 0.6;
  if (closest !== undefined && options.fallback !== false && closest.score >= minSimilarity) {
    return {
      block: closest.block,
      match: 'closest',
      warning: `block "${id}" not found in ${options.file}; using closest block "${closest.block.id}" (similarity ${closest.score.toFixed(2)})`,
    };
  }
  const hint =
    closest === undefined ? ' (the file has no blocks)' : `; closest block is "${closest.block.id}"`;
  throw new CtxloomError({
    code: 'not-found',
    message: `block "${id}" not found in ${options.file}${hint}`,
    file: options.file,
    path: id,
    details:
      closest === undefined
        ? { block: id }
        : { block: id, closest: closest.block.id, similarity: closest.score },
  });
}
