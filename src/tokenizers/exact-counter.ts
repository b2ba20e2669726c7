import { createTokenCounter, OPENAI_MESSAGE_OVERHEAD, type TokenCounter } from '../core/index.ts';
import { type BpeTextCounter, createBpeTextCounter } from './bpe-counter.ts';
import { type EncodingName, loadEncodingTables, splitPatternOf } from './encodings.ts';
import { isSplitPoint } from './split-points.ts';

/** Options of {@link createExactCounter}. */
export interface ExactCounterOptions {
  /** Which vocabulary to count with. */
  encoding: EncodingName;
  /**
   * Piece counts remembered by this counter (pieces of words, and the parts a run of CJK
   * characters is cut into). Default 100 000, ≥ 0 (0 disables).
   */
  maxCachedPieces?: number;
}

/** An exact counter that also exposes its text counter (benchmarks clear its caches). */
export interface ExactTokenCounter extends TokenCounter {
  /**
   * The underlying text counter: `count` as `countText`, `clearCaches` forgets remembered
   * pieces and pairs (benchmarks start cold with it).
   */
  readonly bpe: BpeTextCounter;
}

/**
 * An exact {@link TokenCounter} for an OpenAI encoding, with OpenAI's chat overhead (3 per
 * message, 1 per name, 3 per request). Counts equal tiktoken's and `gpt-tokenizer`'s
 * `encode(text).length` with special tokens treated as ordinary text, so `<|endoftext|>` in
 * user content counts as the 7 tokens it is sent as and never throws. The vocabulary loads on
 * the first count.
 *
 * @example
 * const counter = createExactCounter({ encoding: 'o200k_base' });
 * counter.countText('Hello, world!'); // 4
 */
export function createExactCounter(options: ExactCounterOptions): ExactTokenCounter {
  const { encoding } = options;
  const bpe = createBpeTextCounter({
    loadTables: () => loadEncodingTables(encoding),
    splitPattern: splitPatternOf(encoding),
    ...(options.maxCachedPieces === undefined ? {} : { maxCachedPieces: options.maxCachedPieces }),
  });
  const counter = createTokenCounter({
    name: encoding,
    exact: true,
    countText: bpe.count,
    overhead: OPENAI_MESSAGE_OVERHEAD,
    isSplitPoint,
  });
  // The same object, so core knows its messages are a plain sum of its texts (`createTokenCounter`).
  return Object.assign(counter, { bpe });
}

/** Exact counter for `o200k_base` (gpt-4o, gpt-4.1, gpt-5, o1/o3/o4). */
export function createO200kCounter(): ExactTokenCounter {
  return createExactCounter({ encoding: 'o200k_base' });
}

/** Exact counter for `cl100k_base` (gpt-3.5-turbo, gpt-4, gpt-4-turbo). */
export function createCl100kCounter(): ExactTokenCounter {
  return createExactCounter({ encoding: 'cl100k_base' });
}
