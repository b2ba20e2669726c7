import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fingerprintContent, hashJoined, hashText } from './fingerprint.ts';

// cyrb53 as first written: the 53-bit value's hex digits, zero-padded to 14.
function reference(text: string, seed = 0): string {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(16).padStart(14, '0');
}

describe('hashText', () => {
  it('gives the 14 hex digits of the 53-bit cyrb53 value, leading zeros included', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 80 }), fc.integer(), (text, seed) => {
        expect(hashText(text, seed)).toBe(reference(text, seed));
        expect(hashText(text)).toBe(reference(text));
      }),
      { numRuns: 2000 },
    );
    // Values below 2^52 start with a zero digit (the padding the hex digits need).
    const padded = Array.from({ length: 200 }, (_, index) => `text ${index}`).filter((text) =>
      hashText(text).startsWith('0'),
    );
    expect(padded.length).toBeGreaterThan(50);
    for (const text of padded) expect(hashText(text)).toBe(reference(text));
  });

  it('fingerprints content with whitespace runs collapsed and ends trimmed', () => {
    expect(fingerprintContent('  a \n\t b  ')).toBe(hashText('a b'));
    expect(fingerprintContent('a b')).toHaveLength(14);
  });

  it('gives a long text the same fingerprint every time, remembered or not', () => {
    const texts = Array.from({ length: 5000 }, (_, index) => `  passage ${index}\n\n${'word '.repeat(20)}  `);
    texts.push(`${'long  text '.repeat(30_000)}`);
    const expected = texts.map((text) => hashText(text.replace(/\s+/gu, ' ').trim()));
    // Twice over more texts than are remembered, so some are looked up and some made again.
    for (let round = 0; round < 2; round++) expect(texts.map(fingerprintContent)).toEqual(expected);
  });
});

describe('hashJoined', () => {
  it('hashes two texts as hashText hashes them joined', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (prefix, text) => {
        expect(hashJoined(prefix, text)).toBe(hashText(prefix + text));
        expect(hashJoined(prefix, text)).toBe(reference(prefix + text));
      }),
      { numRuns: 300 },
    );
  });
});
