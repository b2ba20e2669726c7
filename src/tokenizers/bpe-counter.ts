import { type BpeMerger, createBpeMerger } from './bpe-merge.ts';
import type { BpeTables } from './bpe-tables.ts';

const MAX_CACHED_PIECE_LENGTH = 24;

/** Options of {@link createBpeTextCounter}. */
export interface BpeTextCounterOptions {
  /** Loads the encoding's tables; called on the first count only. */
  loadTables: () => BpeTables;
  /** The encoding's pre-tokeniser (a global, unicode regex). */
  splitPattern: RegExp;
  /** Most pieces whose counts are remembered (oldest evicted first). Default 100 000, ≥ 0. */
  maxCachedPieces?: number;
}

/** A text counter with its piece cache exposed for benchmarks. */
export interface BpeTextCounter {
  /** Exact token count of `text`; special-token strings count as ordinary text. */
  count(text: string): number;
  /**
   * Forgets remembered piece counts and pair lookups, so the next count starts cold; the
   * vocabulary stays loaded. For benchmarks; counts never depend on it.
   */
  clearCaches(): void;
}

/**
 * Counts tokens exactly as the encoding's BPE would produce them, without building the
 * token array: the text is split by the encoding's pre-tokeniser; a piece that is itself a
 * token counts 1; other pieces are merged by {@link createBpeMerger}. Counts of recent pieces
 * are remembered, as `gpt-tokenizer`'s merge cache does.
 */
export function createBpeTextCounter(options: BpeTextCounterOptions): BpeTextCounter {
  const maxCachedPieces = options.maxCachedPieces ?? 100_000;
  const splitPattern = new RegExp(options.splitPattern.source, options.splitPattern.flags);
  const pieceCounts = new Map<string, number>();
  let state: { stringRanks: ReadonlyMap<string, number>; merger: BpeMerger } | undefined;

  const count = (text: string): number => {
    if (text.length === 0) return 0;
    if (state === undefined) {
      const tables = options.loadTables();
      state = { stringRanks: tables.stringRanks, merger: createBpeMerger(tables) };
    }
    const { stringRanks, merger } = state;
    let total = 0;
    // `match` with a global regex returns the piece strings without a match object each.
    const pieces = text.match(splitPattern) ?? [];
    for (const piece of pieces) {
      const cacheable = piece.length <= MAX_CACHED_PIECE_LENGTH;
      const cached = cacheable ? pieceCounts.get(piece) : undefined;
      if (cached !== undefined) {
        total += cached;
        continue;
      }
      const pieceCount = stringRanks.has(piece) ? 1 : merger.countPiece(piece);
      // Long pieces (runs of Han characters between punctuation) rarely repeat; caching them
      // only costs.
      if (maxCachedPieces > 0 && cacheable) {
        if (pieceCounts.size >= maxCachedPieces) {
          const oldest = pieceCounts.keys().next();
          if (!oldest.done) pieceCounts.delete(oldest.value);
        }
        pieceCounts.set(piece, pieceCount);
      }
      total += pieceCount;
    }
    return total;
  };

  return {
    count,
    clearCaches: () => {
      pieceCounts.clear();
      state?.merger.clear();
    },
  };
}
