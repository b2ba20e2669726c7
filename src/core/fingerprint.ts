import { collapseWhitespace } from './collapse-whitespace.ts';
import { createTextMemo } from './text-memo.ts';

/**
 * A fast, non-cryptographic 53-bit content hash (two 32-bit lanes, cyrb53 construction),
 * rendered as 14 hex digits. Pure JavaScript so the core stays free of `node:crypto`; used to
 * key the token-count cache and to deduplicate blocks. Not for security.
 */
export function hashText(text: string, seed = 0): string {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  return hexOf(h1, h2);
}

/**
 * `hashText(prefix + text)` without making the joined string (a `+` makes a rope that V8
 * copies into one flat string before the hash can read it: as long as both texts).
 */
export function hashJoined(prefix: string, text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let index = 0; index < prefix.length; index++) {
    const code = prefix.charCodeAt(index);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  return hexOf(h1, h2);
}

// The two lanes mixed and rendered as 14 hex digits.
function hexOf(lane1: number, lane2: number): string {
  let h1 = lane1;
  let h2 = lane2;
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  // The 53-bit value `(2097151 & h2)·2³² + (h1 >>> 0)` as 14 hex digits: 6 from the high
  // lane, 8 from the low. One flat string from the character codes: `toString(16)` and
  // `padStart` built a two-part (cons) string for half the values, and every reader of such
  // a fingerprint (deduplication, map keys) reached its characters through the extra part.
  const high = 2097151 & h2;
  const low = h1 >>> 0;
  return String.fromCharCode(
    HEX[high >>> 20] as number,
    HEX[(high >>> 16) & 15] as number,
    HEX[(high >>> 12) & 15] as number,
    HEX[(high >>> 8) & 15] as number,
    HEX[(high >>> 4) & 15] as number,
    HEX[high & 15] as number,
    HEX[low >>> 28] as number,
    HEX[(low >>> 24) & 15] as number,
    HEX[(low >>> 20) & 15] as number,
    HEX[(low >>> 16) & 15] as number,
    HEX[(low >>> 12) & 15] as number,
    HEX[(low >>> 8) & 15] as number,
    HEX[(low >>> 4) & 15] as number,
    HEX[low & 15] as number,
  );
}

// Character codes of 0-9a-f.
const HEX = Array.from('0123456789abcdef', (digit) => digit.charCodeAt(0));

/**
 * The dedup fingerprint of a block's content: whitespace runs collapsed and ends trimmed
 * before hashing, so the same passage retrieved twice with different spacing is one block.
 */
export function fingerprintContent(content: string): string {
  if (content.length < MIN_REMEMBERED_LENGTH || content.length > MAX_REMEMBERED_LENGTH)
    return collapsedHash(content);
  return remembered.get(content, collapsedHash);
}

function collapsedHash(content: string): string {
  return hashText(collapseWhitespace(content));
}

/**
 * Fingerprints of the texts fingerprinted last, by text: a source makes the same blocks on
 * every compile (its texts are then the same strings, whose hash the engine keeps), and a
 * lookup costs a fraction of collapsing and hashing a long text again. Bounded by entries and
 * by the characters the kept texts hold (cleared when full); texts too short to be worth it,
 * or too long to keep, are hashed each time.
 */
const remembered = createTextMemo<string>({ maxTexts: 4096, maxCharacters: 4 * 1024 * 1024 });
const MIN_REMEMBERED_LENGTH = 64;
const MAX_REMEMBERED_LENGTH = 256 * 1024;
