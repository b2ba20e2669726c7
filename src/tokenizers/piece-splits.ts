import type { Vocabulary } from './vocabulary-file.ts';

/**
 * Where a pre-token piece's byte-pair encoding splits, read off the vocabulary: between two
 * characters that no token of the vocabulary spans. BPE only ever merges two adjacent tokens
 * into a token of the vocabulary, so no merge crosses such a place, and the merges on either
 * side are the ones BPE makes on that side alone (it always takes the lowest-ranked pair; a
 * pair that cannot exist does not change which one that is). So
 * `count(piece) = count(piece[..i]) + count(piece[i..])` there — exactly.
 *
 * In Chinese text most places between two Han characters are such places (71 % of them in the
 * CMRC 2018 contexts with o200k), which cuts a run of Han characters into words of one or two
 * characters that repeat: their counts are cached, where the run as a whole rarely repeats.
 */
export interface PieceSplits {
  /**
   * True when no token spans the place between the UTF-16 units `before` and `after` (two
   * neighbouring characters of a text). Never between two ASCII characters, nor next to a
   * surrogate (characters outside the BMP, lone ones).
   */
  isSplit(before: number, after: number): boolean;
}

const NEVER_AFTER = 1;
const NEVER_BEFORE = 2;

const isContinuation = (byte: number) => (byte & 0xc0) === 0x80;
const sequenceLength = (byte: number) =>
  byte < 0x80 ? 1 : byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 0;

/**
 * Builds {@link PieceSplits} from every token's bytes: for each place inside a token where a
 * character starts, the characters the token holds on either side of it. A token that holds
 * both whole marks that pair of characters; one that holds only part of the character on one
 * side marks the other character as never split on that side; one that holds part of both
 * marks the pair of bytes around the place. Everything unmarked is a split. ~20 ms for o200k.
 */
export function createPieceSplits(vocabulary: Vocabulary): PieceSplits {
  const { bytes, starts } = vocabulary;
  const flags = new Uint8Array(65536);
  // Surrogates stand for characters outside the BMP (or lone ones, sent as U+FFFD): never
  // split around them. NUL is never split so that 0 can mark an empty slot of the pair table.
  flags.fill(NEVER_AFTER | NEVER_BEFORE, 0xd800, 0xe000);
  flags[0] = NEVER_AFTER | NEVER_BEFORE;
  const bytePairs = new Uint8Array(65536);
  const characterPairs = createPairSet();
  const decode = (start: number, length: number): number => {
    const lead = bytes[start] as number;
    if (length === 1) return lead;
    let code = lead & (0xff >> (length + 1));
    for (let offset = 1; offset < length; offset++)
      code = (code << 6) | ((bytes[start + offset] as number) & 63);
    return code;
  };
  for (let rank = 0; rank < starts.length - 1; rank++) {
    const start = starts[rank] as number;
    const end = starts[rank + 1] as number;
    let ascii = true;
    for (let at = start; ascii && at < end; at++) ascii = (bytes[at] as number) < 0x80;
    // Places between two ASCII characters are never split (English words gain nothing from it).
    if (ascii) continue;
    for (let at = start + 1; at < end; at++) {
      if (isContinuation(bytes[at] as number)) continue;
      let lead = at - 1;
      while (lead >= start && isContinuation(bytes[lead] as number)) lead--;
      // The character ending at `at`, when the token holds all of it (else -1).
      const before =
        lead >= start && sequenceLength(bytes[lead] as number) === at - lead ? decode(lead, at - lead) : -1;
      const length = sequenceLength(bytes[at] as number);
      let whole = length > 0 && at + length <= end;
      for (let offset = 1; whole && offset < length; offset++)
        whole = isContinuation(bytes[at + offset] as number);
      // The character starting at `at`, when the token holds all of it (else -1).
      const after = whole ? decode(at, length) : -1;
      // Characters outside the BMP are never split around, so they need no mark.
      if (before > 0xffff || after > 0xffff) continue;
      if (before >= 0 && after >= 0) characterPairs.add((before << 16) | after);
      else if (before >= 0) flags[before] = (flags[before] as number) | NEVER_AFTER;
      else if (after >= 0) flags[after] = (flags[after] as number) | NEVER_BEFORE;
      else bytePairs[((bytes[at - 1] as number) << 8) | (bytes[at] as number)] = 1;
    }
  }
  return {
    isSplit(before: number, after: number): boolean {
      if ((before | after) < 0x80) return false;
      if (
        ((flags[before] as number) & NEVER_AFTER) !== 0 ||
        ((flags[after] as number) & NEVER_BEFORE) !== 0
      ) {
        return false;
      }
      if (bytePairs[(lastByte(before) << 8) | firstByte(after)] === 1) return false;
      return !characterPairs.has((before << 16) | after);
    },
  };
}

/** The last UTF-8 byte of a BMP character. */
function lastByte(code: number): number {
  return code < 0x80 ? code : 0x80 | (code & 63);
}

/** The first UTF-8 byte of a BMP character. */
function firstByte(code: number): number {
  return code < 0x80 ? code : code < 0x800 ? 0xc0 | (code >> 6) : 0xe0 | (code >> 12);
}

/** A growing open-addressing set of non-zero int32 keys (load ≤ 0.5). */
function createPairSet() {
  let bits = 12;
  let slots = new Int32Array(1 << bits);
  let size = 0;
  const slotOf = (key: number) => Math.imul(key, 0x9e3779b1) >>> (32 - bits);
  const insert = (key: number) => {
    const mask = (1 << bits) - 1;
    let slot = slotOf(key);
    for (;;) {
      const found = slots[slot] as number;
      if (found === key) return;
      if (found === 0) break;
      slot = (slot + 1) & mask;
    }
    slots[slot] = key;
    size++;
  };
  return {
    add(key: number): void {
      if (key === 0) return;
      if (size >= 1 << (bits - 1)) {
        const old = slots;
        bits++;
        slots = new Int32Array(1 << bits);
        size = 0;
        for (const kept of old) if (kept !== 0) insert(kept);
      }
      insert(key);
    },
    has(key: number): boolean {
      const mask = (1 << bits) - 1;
      for (let slot = slotOf(key); ; slot = (slot + 1) & mask) {
        const found = slots[slot] as number;
        if (found === key) return true;
        if (found === 0) return false;
      }
    },
  };
}
