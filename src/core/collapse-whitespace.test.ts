import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { collapseWhitespace } from './collapse-whitespace.ts';

/** Whitespace of every kind `\s` matches, beside ordinary and astral characters. */
const unit = fc.oneof(
  fc.constantFrom(
    ' ',
    '  ',
    '\t',
    '\n',
    '\r\n',
    '\v',
    '\f',
    '\u00a0',
    '\u1680',
    '\u2000',
    '\u200a',
    '\u202f',
    '\u205f',
    '\u0085',
    '\u2028',
    '\u2029',
    '\u3000',
    '\ufeff',
  ),
  fc.constantFrom('a', 'Z', '中', '。', '😀', '\ud800'),
  fc.string({ unit: 'grapheme', maxLength: 3 }),
);

describe('collapseWhitespace', () => {
  it('equals replace(/\\s+/g, " ").trim() on any text', () => {
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 40 }), (pieces) => {
        const text = pieces.join('');
        expect(collapseWhitespace(text)).toBe(text.replace(/\s+/gu, ' ').trim());
      }),
      { numRuns: 2000 },
    );
  });

  it('agrees with \\s on every UTF-16 code unit, inside a text and at either end', () => {
    for (let code = 0; code <= 0xffff; code++) {
      const character = String.fromCharCode(code);
      for (const text of [`a${character}b`, `${character}a`, `a${character}`, `a ${character}b`]) {
        const expected = text.replace(/\s+/gu, ' ').trim();
        if (collapseWhitespace(text) !== expected)
          expect.fail(`U+${code.toString(16).padStart(4, '0')} in ${JSON.stringify(text)}`);
      }
    }
  });

  it('returns text with only single inner spaces unchanged, and collapses the rest', () => {
    expect(collapseWhitespace('Caroline: I went to a support group.')).toBe(
      'Caroline: I went to a support group.',
    );
    expect(collapseWhitespace(' a \t b\n\nc ')).toBe('a b c');
    expect(collapseWhitespace('\u3000中文\u00a0文本')).toBe('中文 文本');
    expect(collapseWhitespace('')).toBe('');
  });
});
