import { type BpeMerger, createBpeMerger } from './bpe-merge.ts';
import type { BpeTables } from './bpe-tables.ts';

const MAX_CACHED_PIECE_LENGTH = 24;

interface CounterState {
  tables: BpeTables;
  merger: BpeMerger;
}

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
  const counter = new TextCounter(options);
  return { count: (text) => counter.count(text), clearCaches: () => counter.clearCaches() };
}

// A class rather than closures over one counter's state: optimised code that calls a method
// depends on the class's shape, which outlives every counter, where calls between closures of
// one counter made the engine drop that code when the counter was collected and compile it
// again for the next one (decision 059, third amendment).
class TextCounter {
  private readonly maxCachedPieces: number;
  private readonly splitPattern: RegExp;
  private readonly loadTables: () => BpeTables;
  private readonly pieceCounts = new Map<string, number>();
  // Parts of one or two BMP characters (most parts of Chinese text) are kept by code, with no
  // string made for them: tokens of one character (0: not counted yet), and of two.
  private readonly characterCounts = new Uint8Array(65536);
  private readonly characterPairCounts = new CodePairCounts();
  private state: CounterState | undefined = undefined;
  // Set by countPiece: the piece was cut into parts (and each part remembered).
  private wasCut = false;

  constructor(options: BpeTextCounterOptions) {
    this.maxCachedPieces = options.maxCachedPieces ?? 100_000;
    this.splitPattern = new RegExp(options.splitPattern.source, options.splitPattern.flags);
    this.loadTables = options.loadTables;
  }

  count(text: string): number {
    if (text.length === 0) return 0;
    let state = this.state;
    if (state === undefined) {
      const tables = this.loadTables();
      state = { tables, merger: createBpeMerger(tables) };
      this.state = state;
    }
    const { pieceCounts } = this;
    let total = 0;
    // `match` with a global regex returns the piece strings without a match object each.
    const pieces = text.match(this.splitPattern) ?? [];
    for (const piece of pieces) {
      const cacheable = piece.length <= MAX_CACHED_PIECE_LENGTH;
      const cached = cacheable ? pieceCounts.get(piece) : undefined;
      if (cached !== undefined) {
        total += cached;
        continue;
      }
      const pieceCount = this.countPiece(state, piece);
      // A piece cut into parts is counted again from its remembered parts; long pieces rarely
      // repeat. Only whole pieces of words are worth a cache entry of their own.
      if (cacheable && !this.wasCut) this.remember(piece, pieceCount);
      total += pieceCount;
    }
    return total;
  }

  private remember(piece: string, pieceCount: number): void {
    const { pieceCounts } = this;
    if (this.maxCachedPieces === 0) return;
    if (pieceCounts.size >= this.maxCachedPieces) {
      const oldest = pieceCounts.keys().next();
      if (!oldest.done) pieceCounts.delete(oldest.value);
    }
    pieceCounts.set(piece, pieceCount);
  }

  // A piece not remembered: cut where no token spans (piece-splits.ts), each part counted
  // from its cache or merged alone. A run of Han characters is mostly words of one or two
  // characters that recur, so a run first seen is still counted from remembered words.
  private countPiece(current: CounterState, piece: string): number {
    this.wasCut = false;
    if (current.tables.isToken(piece)) return 1;
    const { splits } = current.tables;
    let total = 0;
    let start = 0;
    let previous = piece.charCodeAt(0);
    for (let index = 1; index < piece.length; index++) {
      const code = piece.charCodeAt(index);
      if (splits.isSplit(previous, code)) {
        total += this.countPart(current, piece, start, index);
        start = index;
      }
      previous = code;
    }
    if (start === 0) return current.merger.countPiece(piece);
    this.wasCut = true;
    return total + this.countPart(current, piece, start, piece.length);
  }

  // Splits never fall next to a surrogate, so a part of one or two units is BMP characters.
  private countPart(current: CounterState, piece: string, start: number, end: number): number {
    const length = end - start;
    if (length === 1) {
      const code = piece.charCodeAt(start);
      const known = this.characterCounts[code] as number;
      if (known !== 0) return known;
      const characterCount = countUncached(current, piece.slice(start, end));
      if (this.maxCachedPieces > 0) this.characterCounts[code] = characterCount;
      return characterCount;
    }
    if (length === 2) {
      const key = (piece.charCodeAt(start) << 16) | piece.charCodeAt(start + 1);
      const known = this.characterPairCounts.get(key);
      if (known !== 0) return known;
      const pairCount = countUncached(current, piece.slice(start, end));
      if (this.maxCachedPieces > 0) this.characterPairCounts.set(key, pairCount);
      return pairCount;
    }
    const part = piece.slice(start, end);
    const cacheable = length <= MAX_CACHED_PIECE_LENGTH;
    const cached = cacheable ? this.pieceCounts.get(part) : undefined;
    if (cached !== undefined) return cached;
    const partCount = countUncached(current, part);
    if (cacheable) this.remember(part, partCount);
    return partCount;
  }

  clearCaches(): void {
    this.pieceCounts.clear();
    this.characterCounts.fill(0);
    this.characterPairCounts.clear();
    this.state?.merger.clear();
  }
}

const countUncached = ({ tables, merger }: CounterState, text: string): number =>
  tables.isToken(text) ? 1 : merger.countPiece(text);

const PAIR_SLOT_BITS = 16;
const PAIR_SLOT_MASK = (1 << PAIR_SLOT_BITS) - 1;
const slotOf = (key: number) => Math.imul(key, 0x9e3779b1) >>> (32 - PAIR_SLOT_BITS);

/**
 * Token counts of two-character parts keyed by their two UTF-16 units (`first << 16 | second`,
 * never 0: NUL is never split next to). Open addressing in 2¹⁶ slots, filled to half; further
 * pairs are counted each time.
 */
class CodePairCounts {
  private readonly keys = new Int32Array(1 << PAIR_SLOT_BITS);
  private readonly counts = new Uint8Array(1 << PAIR_SLOT_BITS);
  private size = 0;

  /** The count, or 0 when not known. */
  get(key: number): number {
    const { keys } = this;
    for (let slot = slotOf(key); ; slot = (slot + 1) & PAIR_SLOT_MASK) {
      const found = keys[slot] as number;
      if (found === key) return this.counts[slot] as number;
      if (found === 0) return 0;
    }
  }

  set(key: number, count: number): void {
    if (this.size >= PAIR_SLOT_MASK >> 1) return;
    const { keys } = this;
    let slot = slotOf(key);
    while (keys[slot] !== 0) slot = (slot + 1) & PAIR_SLOT_MASK;
    keys[slot] = key;
    this.counts[slot] = count;
    this.size++;
  }

  clear(): void {
    this.keys.fill(0);
    this.size = 0;
  }
}
