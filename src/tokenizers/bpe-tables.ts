import { CtxloomError } from '../core/index.ts';
import { createPieceSplits, type PieceSplits } from './piece-splits.ts';
import { createTokenBytesIndex, HASH_BASE, hashBytes, type TokenBytesIndex } from './token-bytes-index.ts';
import type { Vocabulary } from './vocabulary-file.ts';

/**
 * One encoding's vocabulary in the shape the counting loop needs: whole-piece lookup by
 * string, single-byte ranks, and an open-addressing table of every mergeable pair of tokens.
 */
export interface BpeTables {
  /**
   * Whether `text` is one token: its UTF-8 bytes looked up in the vocabulary's byte index (a
   * text with a lone surrogate is none). Not re-entrant (one shared buffer), as the counters
   * that call it are not.
   */
  isToken(text: string): boolean;
  /** Rank of each single byte (0–255). */
  readonly byteRanks: Int32Array;
  /**
   * Pair table, 2 int32 per slot (−1 = empty), see {@link packPair}. A pair is present
   * exactly when the concatenated bytes of both tokens are a token.
   */
  readonly pairs: Int32Array;
  /** log2 of the number of slots in {@link BpeTables.pairs}. */
  readonly pairBits: number;
  /** Where a piece's count splits (between characters no token spans). */
  readonly splits: PieceSplits;
}

/** Returned by the pair lookup when two tokens do not merge. */
export const NO_MERGE = 0x7fffffff;

/**
 * Packs a pair into the two words of a slot: `left | (right >> 4) << 18` and
 * `(right & 15) | merged << 4`. Needs ranks < 2¹⁸ (o200k has 200 019), so 8 bytes per slot
 * instead of 12–16, which keeps more of the table in the CPU cache.
 */
export function packPair(left: number, right: number): number {
  return left | ((right >>> 4) << 18);
}

/** Largest vocabulary {@link packPair} can hold. */
export const MAX_PACKED_RANK = 1 << 18;

/** Hash of a token pair, shared by the builder and the lookup. */
export function hashPair(left: number, right: number): number {
  return Math.imul(left, 0x9e3779b1) ^ Math.imul(right, 0x85ebca6b);
}

/**
 * Builds {@link BpeTables} from a {@link Vocabulary} (tokens in rank order).
 * Costs ~0.2 s of CPU in a new process and ~12 MB for o200k (8 MB of it the pair table); done
 * once per encoding.
 */
export function createBpeTables(vocabulary: Vocabulary): BpeTables {
  const { bytes, starts } = vocabulary;
  const rankCount = starts.length - 1;
  if (rankCount > MAX_PACKED_RANK) {
    throw new CtxloomError({
      code: 'unsupported',
      message: `vocabularies over ${MAX_PACKED_RANK} ranks`,
      path: 'ranks',
    });
  }
  const index = createTokenBytesIndex(bytes, starts);
  const byteRanks = new Int32Array(256);
  const single = new Uint8Array(1);
  for (let byte = 0; byte < 256; byte++) {
    single[0] = byte;
    const rank = index.find(hashBytes(single, 0, 1), single, 0, 1);
    if (rank === -1) {
      throw new CtxloomError({
        code: 'invalid-argument',
        message: `rank list lacks byte ${byte}`,
        path: 'ranks',
      });
    }
    byteRanks[byte] = rank;
  }
  let longest = 0;
  for (let rank = 0; rank < rankCount; rank++)
    longest = Math.max(longest, (starts[rank + 1] as number) - (starts[rank] as number));
  const { pairs, pairBits } = buildPairTable(index, rankCount, longest);
  return {
    isToken: tokenTest(index, longest),
    byteRanks,
    pairs,
    pairBits,
    splits: createPieceSplits(vocabulary),
  };
}

/**
 * {@link BpeTables.isToken} over `index`: the text's UTF-8 bytes (the platform's encoder, into
 * one buffer) looked up by their hash. Looking texts up by their bytes needs no string per
 * token: a map from each token's text took ~100 ms of a new process's first count (and its
 * strings ~10 MB). `longest` is the longest token, in bytes.
 */
function tokenTest(index: TokenBytesIndex, longest: number): (text: string) => boolean {
  const encoder = new TextEncoder();
  // A UTF-16 unit is one to three UTF-8 bytes (a surrogate pair four for its two).
  const buffer = new Uint8Array(longest * 3);
  return (text) => {
    // More units than the longest token has bytes; a lone surrogate, which no token's text holds.
    if (text.length > longest || !text.isWellFormed()) return false;
    const { written } = encoder.encodeInto(text, buffer);
    return index.find(hashBytes(buffer, 0, written), buffer, 0, written) !== -1;
  };
}

/**
 * Every split of every token into two tokens: (left, right) → token. Typed arrays throughout
 * (the hashes, the powers, the pairs found): with plain arrays the pass took twice as long
 * and left ~1.3 M numbers to collect, most of the time a process waits for its first count.
 */
function buildPairTable(
  index: TokenBytesIndex,
  rankCount: number,
  maxLength: number,
): { pairs: Int32Array; pairBits: number } {
  const { bytes, starts } = index;
  const prefixHashes = new Int32Array(maxLength + 1);
  const powers = new Int32Array(maxLength + 1);
  powers[0] = 1;
  for (let length = 1; length <= maxLength; length++)
    powers[length] = Math.imul(powers[length - 1] as number, HASH_BASE);
  // (left, right, merged) triples.
  let found = new Int32Array(3 << 18);
  let size = 0;
  for (let rank = 0; rank < rankCount; rank++) {
    const start = starts[rank] as number;
    const end = starts[rank + 1] as number;
    const length = end - start;
    if (length < 2) continue;
    let hash = 0;
    for (let offset = 0; offset < length; offset++) {
      hash = (Math.imul(hash, HASH_BASE) + (bytes[start + offset] as number)) | 0;
      prefixHashes[offset + 1] = hash;
    }
    for (let split = 1; split < length; split++) {
      const prefixHash = prefixHashes[split] as number;
      const left = index.find(prefixHash, bytes, start, start + split);
      if (left === -1) continue;
      // hash(suffix) = hash(all) − hash(prefix) · BASE^(suffix length)  (mod 2³²)
      const suffixHash = (hash - Math.imul(prefixHash, powers[length - split] as number)) | 0;
      const right = index.find(suffixHash, bytes, start + split, end);
      if (right === -1) continue;
      if (size + 3 > found.length) {
        const grown = new Int32Array(found.length * 2);
        grown.set(found);
        found = grown;
      }
      found[size++] = left;
      found[size++] = right;
      found[size++] = rank;
    }
  }
  const count = size / 3;
  // Load factor ≤ 0.5 keeps linear probes short.
  const pairBits = Math.max(8, Math.ceil(Math.log2(count * 2)));
  const mask = (1 << pairBits) - 1;
  const pairs = new Int32Array((1 << pairBits) * 2).fill(-1);
  for (let index = 0; index < size; index += 3) {
    const left = found[index] as number;
    const right = found[index + 1] as number;
    let slot = hashPair(left, right) >>> (32 - pairBits);
    while (pairs[slot << 1] !== -1) slot = (slot + 1) & mask;
    pairs[slot << 1] = packPair(left, right);
    pairs[(slot << 1) + 1] = (right & 15) | ((found[index + 2] as number) << 4);
  }
  return { pairs, pairBits };
}
