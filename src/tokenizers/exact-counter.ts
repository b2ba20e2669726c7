import { createTokenCounter, OPENAI_MESSAGE_OVERHEAD, type TokenCounter } from '../core/index.ts';
import { type BpeTextCounter, createBpeTextCounter } from './bpe-counter.ts';
import { type EncodingName, loadEncodingTables, splitPatternOf } from './encodings.ts';
import { isSplitPoint } from './split-points.ts';
import { loadWasmEncoding, prefersWasm, type WasmEncoding } from './wasm-counter.ts';

/** Options of {@link createExactCounter}. */
export interface ExactCounterOptions {
  /** Which vocabulary to count with. */
  encoding: EncodingName;
  /** Piece counts remembered by this counter. Default 100 000, ≥ 0 (0 disables). */
  maxCachedPieces?: number;
  /**
   * `auto` (default): CJK-heavy texts of 64+ characters are counted by tiktoken's
   * WebAssembly encoder, the rest by the JavaScript BPE loop — whichever is faster for the
   * text; counts are identical. `js`: the JavaScript loop only.
   */
  backend?: 'auto' | 'js';
  /**
   * UTF-16 units of CJK-heavy texts (those counted by WebAssembly) whose counts are
   * remembered whole, by content. Default 4 Mi (~8 MB of keys), ≥ 0 (0 disables).
   */
  maxCachedCjkCharacters?: number;
}

/** An exact counter that also exposes its text counter (benchmarks clear its caches). */
export interface ExactTokenCounter extends TokenCounter {
  /**
   * The underlying text counter: `count` as `countText`, `clearCaches` forgets remembered
   * pieces, pairs and CJK-heavy texts (benchmarks start cold with it).
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
  const useWasm = (options.backend ?? 'auto') === 'auto';
  // Looked up on the first CJK-heavy text, then kept (null: tiktoken cannot load here).
  let wasm: WasmEncoding | null | undefined;
  // CJK-heavy texts bypass the piece cache (they go to WebAssembly whole), so their counts are
  // remembered whole, by content: counting such a text again is one lookup, as counting a
  // text of cached pieces is for the JavaScript loop.
  const cjkTexts = createTextCountCache(options.maxCachedCjkCharacters ?? 4 * 1024 * 1024);
  const countText = useWasm
    ? (text: string): number => {
        if (prefersWasm(text)) {
          const known = cjkTexts.get(text);
          if (known !== undefined) return known;
          if (wasm === undefined) wasm = loadWasmEncoding(encoding) ?? null;
          if (wasm !== null) return cjkTexts.set(text, wasm.encode_ordinary(text).length);
        }
        return bpe.count(text);
      }
    : bpe.count;
  const counter = createTokenCounter({
    name: encoding,
    exact: true,
    countText,
    overhead: OPENAI_MESSAGE_OVERHEAD,
    isSplitPoint,
  });
  const clearCaches = () => {
    bpe.clearCaches();
    cjkTexts.clear();
  };
  return { ...counter, bpe: { count: bpe.count, clearCaches } };
}

/** A content-keyed count cache bounded by the UTF-16 units of its keys (oldest evicted first). */
function createTextCountCache(maxCharacters: number) {
  const counts = new Map<string, number>();
  let characters = 0;
  return {
    get: (text: string) => counts.get(text),
    set(text: string, count: number): number {
      if (text.length > maxCharacters) return count;
      while (characters + text.length > maxCharacters) {
        const oldest = counts.keys().next();
        if (oldest.done) break;
        characters -= oldest.value.length;
        counts.delete(oldest.value);
      }
      counts.set(text, count);
      characters += text.length;
      return count;
    },
    clear() {
      counts.clear();
      characters = 0;
    },
  };
}

/** Exact counter for `o200k_base` (gpt-4o, gpt-4.1, gpt-5, o1/o3/o4). */
export function createO200kCounter(): ExactTokenCounter {
  return createExactCounter({ encoding: 'o200k_base' });
}

/** Exact counter for `cl100k_base` (gpt-3.5-turbo, gpt-4, gpt-4-turbo). */
export function createCl100kCounter(): ExactTokenCounter {
  return createExactCounter({ encoding: 'cl100k_base' });
}
