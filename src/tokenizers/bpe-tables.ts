import { CtxloomError } from '../core/index.ts';

/**
 * One encoding's vocabulary in the shape the counting loop needs: whole-piece lookup by
 * string, single-byte ranks, and an open-addressing table of every mergeable pair of tokens.
 */
export interface BpeTables {
  /** Rank of every token whose bytes are valid UTF-8, keyed by its text. */
  readonly stringRanks: ReadonlyMap<string, number>;
  /** Rank of each single byte (0–255). */
  readonly byteRanks: Int32Array;
  /**
   * Pair table, 4 int32 per slot: left rank, right rank, merged rank, unused (−1 = empty).
   * A pair is present exactly when the concatenated bytes of both tokens are a token.
   */
  readonly pairs: Int32Array;
  /** log2 of the number of slots in {@link BpeTables.pairs}. */
  readonly pairBits: number;
}

/** Returned by the pair lookup when two tokens do not merge. */
export const NO_MERGE = 0x7fffffff;

/** Hash of a token pair, shared by the builder and the lookup. */
export function hashPair(left: number, right: number): number {
  return Math.imul(left, 0x9e3779b1) ^ Math.imul(right, 0x85ebca6b);
}

/**
 * Builds {@link BpeTables} from a rank list (index = rank; value = the token's text, or its
 * bytes when they are not valid UTF-8), the format `gpt-tokenizer` ships its encodings in.
 * Costs a few hundred milliseconds and ~20 MB for o200k; done once per encoding.
 */
export function createBpeTables(ranks: readonly (string | readonly number[] | undefined)[]): BpeTables {
  const byteKeyRanks = new Map<string, number>();
  const stringRanks = new Map<string, number>();
  const byteKeys: (string | undefined)[] = new Array(ranks.length);
  for (let rank = 0; rank < ranks.length; rank++) {
    const value = ranks[rank];
    if (value === undefined) continue;
    let key: string;
    if (typeof value === 'string') {
      stringRanks.set(value, rank);
      key = toByteKey(value);
    } else {
      key = String.fromCharCode(...value);
    }
    byteKeyRanks.set(key, rank);
    byteKeys[rank] = key;
  }
  const byteRanks = new Int32Array(256);
  for (let byte = 0; byte < 256; byte++) {
    const rank = byteKeyRanks.get(String.fromCharCode(byte));
    if (rank === undefined) {
      throw new CtxloomError({
        code: 'invalid-argument',
        message: `rank list lacks byte ${byte}`,
        path: 'ranks',
      });
    }
    byteRanks[byte] = rank;
  }
  const { pairs, pairBits } = buildPairTable(byteKeys, byteKeyRanks);
  return { stringRanks, byteRanks, pairs, pairBits };
}

function buildPairTable(
  byteKeys: readonly (string | undefined)[],
  byteKeyRanks: ReadonlyMap<string, number>,
): { pairs: Int32Array; pairBits: number } {
  const found: number[] = [];
  for (let rank = 0; rank < byteKeys.length; rank++) {
    const key = byteKeys[rank];
    if (key === undefined || key.length < 2) continue;
    for (let split = 1; split < key.length; split++) {
      const left = byteKeyRanks.get(key.slice(0, split));
      if (left === undefined) continue;
      const right = byteKeyRanks.get(key.slice(split));
      if (right !== undefined) found.push(left, right, rank);
    }
  }
  const count = found.length / 3;
  // Load factor ≤ 0.5 keeps linear probes short.
  const pairBits = Math.max(8, Math.ceil(Math.log2(count * 2)));
  const mask = (1 << pairBits) - 1;
  const pairs = new Int32Array((1 << pairBits) * 4).fill(-1);
  for (let index = 0; index < found.length; index += 3) {
    const left = found[index] as number;
    const right = found[index + 1] as number;
    let slot = hashPair(left, right) >>> (32 - pairBits);
    while (pairs[slot << 2] !== -1) slot = (slot + 1) & mask;
    pairs[slot << 2] = left;
    pairs[(slot << 2) + 1] = right;
    pairs[(slot << 2) + 2] = found[index + 2] as number;
  }
  return { pairs, pairBits };
}

/**
 * The UTF-8 bytes of `text` as a string of char codes 0–255 (lone surrogates become U+FFFD,
 * as `TextEncoder` does).
 */
export function toByteKey(text: string): string {
  return String.fromCharCode(...utf8.encode(text));
}

const utf8 = new TextEncoder();
