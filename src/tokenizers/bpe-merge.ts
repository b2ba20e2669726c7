import { type BpeTables, hashPair, NO_MERGE, packPair } from './bpe-tables.ts';
import { encodeByteRanks } from './encode-byte-ranks.ts';

const RANK_SCALE = 4294967296; // 2^32: heap keys are rank · 2^32 + position
const SHORT_PIECE_BYTES = 16;

/**
 * Counts the tokens byte-pair encoding produces for one pre-token piece. Same merges as
 * tiktoken (always the lowest-ranked adjacent pair, leftmost on ties); pieces over 16 bytes
 * use a binary heap over a linked list, so a piece of n bytes costs O(n log n) instead of
 * O(n²): a 1 MB run of
 * letters is counted in milliseconds rather than hanging. One instance per counter; not
 * re-entrant.
 */
export interface BpeMerger {
  /** Tokens of `piece` (a piece that is not itself a token). */
  countPiece(piece: string): number;
  /** Empties the small cache of recent pair lookups. */
  clear(): void;
}

/** Creates a {@link BpeMerger} over `tables`. */
export function createBpeMerger(tables: BpeTables): BpeMerger {
  return new Merger(tables);
}

const HOT_BITS = 16;
const HOT_NONE = 0xfffffff; // NO_MERGE in the 28 bits a packed slot has for the result

// A class rather than closures over one merger's state: optimised code that calls a method
// depends on the class's shape, which outlives every merger, where a call to a closure of one
// merger made the engine drop that code when the merger was collected and compile it again
// for the next counter (decision 059, third amendment).
class Merger implements BpeMerger {
  private readonly byteRanks: Int32Array;
  private readonly pairs: Int32Array;
  private readonly pairBits: number;
  private readonly pairMask: number;
  // A small direct-mapped cache of pair lookups that stays in the CPU cache; the big table
  // does not, and its misses were the main cost on Chinese text.
  private readonly hot = new Int32Array((1 << HOT_BITS) * 2).fill(-1);
  private capacity = 0;
  private tokens = new Int32Array(0);
  private ranks = new Int32Array(0);
  private next = new Int32Array(0);
  private previous = new Int32Array(0);
  private stamps = new Int32Array(0);
  private heapKeys = new Float64Array(0);
  private heapStamps = new Int32Array(0);
  private heapPositions = new Int32Array(0);
  private heapSize = 0;

  constructor(tables: BpeTables) {
    this.byteRanks = tables.byteRanks;
    this.pairs = tables.pairs;
    this.pairBits = tables.pairBits;
    this.pairMask = (1 << tables.pairBits) - 1;
  }

  private lookup(left: number, right: number): number {
    const { hot, pairs, pairBits, pairMask } = this;
    const mix = hashPair(left, right);
    const packed = packPair(left, right);
    const low = right & 15;
    const hotSlot = (mix >>> (32 - HOT_BITS)) << 1;
    if (hot[hotSlot] === packed) {
      const second = hot[hotSlot + 1] as number;
      if ((second & 15) === low) {
        const cached = second >>> 4;
        return cached === HOT_NONE ? NO_MERGE : cached;
      }
    }
    let slot = mix >>> (32 - pairBits);
    let merged = NO_MERGE;
    for (;;) {
      const word = pairs[slot << 1] as number;
      if (word === -1) break;
      const second = pairs[(slot << 1) + 1] as number;
      if (word === packed && (second & 15) === low) {
        merged = second >>> 4;
        break;
      }
      slot = (slot + 1) & pairMask;
    }
    hot[hotSlot] = packed;
    hot[hotSlot + 1] = low | ((merged === NO_MERGE ? HOT_NONE : merged) << 4);
    return merged;
  }

  private ensureCapacity(size: number): void {
    if (size <= this.capacity) return;
    const capacity = Math.max(256, size * 2);
    this.capacity = capacity;
    this.tokens = new Int32Array(capacity);
    this.ranks = new Int32Array(capacity);
    this.next = new Int32Array(capacity);
    this.previous = new Int32Array(capacity);
    this.stamps = new Int32Array(capacity);
    this.heapKeys = new Float64Array(capacity);
    this.heapStamps = new Int32Array(capacity);
    this.heapPositions = new Int32Array(capacity);
  }

  private push(rank: number, position: number, stamp: number): void {
    const { heapKeys, heapStamps, heapPositions } = this;
    const key = rank * RANK_SCALE + position;
    let index = this.heapSize++;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if ((heapKeys[parent] as number) <= key) break;
      heapKeys[index] = heapKeys[parent] as number;
      heapStamps[index] = heapStamps[parent] as number;
      heapPositions[index] = heapPositions[parent] as number;
      index = parent;
    }
    heapKeys[index] = key;
    heapStamps[index] = stamp;
    heapPositions[index] = position;
  }

  private removeTop(): void {
    const { heapKeys, heapStamps, heapPositions } = this;
    const heapSize = --this.heapSize;
    const key = heapKeys[heapSize] as number;
    const stamp = heapStamps[heapSize] as number;
    const position = heapPositions[heapSize] as number;
    let index = 0;
    for (;;) {
      let child = 2 * index + 1;
      if (child >= heapSize) break;
      if (child + 1 < heapSize && (heapKeys[child + 1] as number) < (heapKeys[child] as number)) child++;
      if ((heapKeys[child] as number) >= key) break;
      heapKeys[index] = heapKeys[child] as number;
      heapStamps[index] = heapStamps[child] as number;
      heapPositions[index] = heapPositions[child] as number;
      index = child;
    }
    heapKeys[index] = key;
    heapStamps[index] = stamp;
    heapPositions[index] = position;
  }

  // Short pieces (most of them) merge faster by scanning a dense array for the lowest rank.
  private countShort(length: number): number {
    const { tokens, ranks } = this;
    for (let index = 0; index < length - 1; index++) {
      ranks[index] = this.lookup(tokens[index] as number, tokens[index + 1] as number);
    }
    let remaining = length;
    while (remaining > 1) {
      let lowest = NO_MERGE;
      let at = -1;
      for (let index = 0; index < remaining - 1; index++) {
        if ((ranks[index] as number) < lowest) {
          lowest = ranks[index] as number;
          at = index;
        }
      }
      if (at === -1) break;
      tokens[at] = lowest;
      tokens.copyWithin(at + 1, at + 2, remaining);
      ranks.copyWithin(at + 1, at + 2, remaining);
      remaining--;
      if (at + 1 < remaining) ranks[at] = this.lookup(lowest, tokens[at + 1] as number);
      if (at > 0) ranks[at - 1] = this.lookup(tokens[at - 1] as number, lowest);
    }
    return remaining;
  }

  countPiece(piece: string): number {
    this.ensureCapacity(piece.length * 3);
    const { tokens } = this;
    const length = encodeByteRanks(piece, this.byteRanks, tokens);
    if (length <= SHORT_PIECE_BYTES) return this.countShort(length);
    const { next, previous, stamps, heapKeys, heapStamps, heapPositions } = this;
    this.heapSize = 0;
    for (let index = 0; index < length; index++) {
      next[index] = index + 1;
      previous[index] = index - 1;
      stamps[index] = 0;
    }
    next[length - 1] = -1;
    for (let index = 0; index < length - 1; index++) {
      const rank = this.lookup(tokens[index] as number, tokens[index + 1] as number);
      if (rank !== NO_MERGE) this.push(rank, index, 0);
    }
    let remaining = length;
    while (this.heapSize > 0) {
      const key = heapKeys[0] as number;
      const stamp = heapStamps[0] as number;
      const left = heapPositions[0] as number;
      this.removeTop();
      // A stale entry: this node or its right neighbour changed since the pair was queued.
      if (stamps[left] !== stamp) continue;
      const right = next[left] as number;
      tokens[left] = (key - left) / RANK_SCALE;
      remaining--;
      const after = next[right] as number;
      next[left] = after;
      if (after !== -1) previous[after] = left;
      stamps[right] = -1;
      const leftStamp = (stamps[left] as number) + 1;
      stamps[left] = leftStamp;
      if (after !== -1) {
        const rank = this.lookup(tokens[left] as number, tokens[after] as number);
        if (rank !== NO_MERGE) this.push(rank, left, leftStamp);
      }
      const before = previous[left] as number;
      if (before !== -1) {
        const beforeStamp = (stamps[before] as number) + 1;
        stamps[before] = beforeStamp;
        const rank = this.lookup(tokens[before] as number, tokens[left] as number);
        if (rank !== NO_MERGE) this.push(rank, before, beforeStamp);
      }
    }
    return remaining;
  }

  clear(): void {
    this.hot.fill(-1);
  }
}
