/**
 * Every token's UTF-8 bytes in one buffer, with a hash index from byte sequence to rank, so
 * the pair table can be built from prefix and suffix hashes without creating a string per
 * split (that took over a second for o200k).
 */
export interface TokenBytesIndex {
  /** All token bytes, concatenated in rank order. */
  readonly bytes: Uint8Array;
  /** Token `rank` occupies `bytes[starts[rank]] … bytes[starts[rank + 1]]` (empty for holes). */
  readonly starts: Int32Array;
  /** Rank of the byte sequence `bytes[start, end)` with polynomial hash `hash`, or −1. */
  find(hash: number, source: Uint8Array, start: number, end: number): number;
}

/** Multiplier of the polynomial byte hash `h = h · HASH_BASE + byte (mod 2³²)`. */
export const HASH_BASE = 0x01000193;

/**
 * Builds the {@link TokenBytesIndex} of a vocabulary's token bytes (`starts` has one entry per
 * rank plus the end; an empty range is a rank without a token).
 */
export function createTokenBytesIndex(bytes: Uint8Array, starts: Int32Array): TokenBytesIndex {
  const rankCount = starts.length - 1;
  const bits = Math.max(8, Math.ceil(Math.log2(rankCount * 2.5)));
  const mask = (1 << bits) - 1;
  const slots = new Int32Array(1 << bits).fill(-1);
  const slotOf = (hash: number) => Math.imul(hash, 0x9e3779b1) >>> (32 - bits);
  for (let rank = 0; rank < rankCount; rank++) {
    const start = starts[rank] as number;
    const end = starts[rank + 1] as number;
    if (end === start) continue;
    let slot = slotOf(hashBytes(bytes, start, end));
    while (slots[slot] !== -1) slot = (slot + 1) & mask;
    slots[slot] = rank;
  }

  const find = (hash: number, source: Uint8Array, start: number, end: number): number => {
    const length = end - start;
    for (let slot = slotOf(hash); ; slot = (slot + 1) & mask) {
      const rank = slots[slot] as number;
      if (rank === -1) return -1;
      const candidate = starts[rank] as number;
      if ((starts[rank + 1] as number) - candidate !== length) continue;
      let equal = true;
      for (let index = 0; index < length; index++) {
        if (bytes[candidate + index] !== source[start + index]) {
          equal = false;
          break;
        }
      }
      if (equal) return rank;
    }
  };
  return { bytes, starts, find };
}

/** Polynomial hash of `bytes[start, end)`. */
export function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  let hash = 0;
  for (let index = start; index < end; index++)
    hash = (Math.imul(hash, HASH_BASE) + (bytes[index] as number)) | 0;
  return hash;
}
