import { describe, expect, it } from 'vitest';
import { quoteShortened, shorten } from './shorten.ts';

describe('shorten', () => {
  it('keeps a short value, cuts a long one to its first characters and …', () => {
    expect(shorten('m001')).toBe('m001');
    expect(shorten('x'.repeat(200))).toBe('x'.repeat(200));
    expect(shorten('x'.repeat(201))).toBe(`${'x'.repeat(199)}…`);
    expect(shorten('abcdef', 4)).toBe('abc…');
  });

  it('never cuts a character outside the BMP in half', () => {
    const shown = shorten('ab😀cdef', 4);
    expect(shown).toBe('ab…');
    expect(shown.isWellFormed()).toBe(true);
  });

  it('quotes the first ids of a list and counts the rest', () => {
    expect(quoteShortened(['a', 'b'])).toBe('"a", "b"');
    expect(quoteShortened(['a', 'b', 'c'], 2)).toBe('"a", "b" and 1 more');
    expect(quoteShortened(['x'.repeat(300)])).toBe(`"${'x'.repeat(199)}…"`);
  });
});
