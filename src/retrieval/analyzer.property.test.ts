import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createAnalyzer, RUN_PIECE } from './analyzer.ts';
import { normalizeText } from './normalize-text.ts';
import { stemEnglish } from './stem-english.ts';
import { DEFAULT_STOPWORDS } from './stopwords.ts';

// ASCII with the characters that matter to tokenising: letters of both cases, digits,
// apostrophes, separators and punctuation.
const asciiText = fc.oneof(
  fc.string({
    unit: fc.integer({ min: 0, max: 0x7f }).map((code) => String.fromCharCode(code)),
    maxLength: 120,
  }),
  fc.string({
    unit: fc.constantFrom('a', 'B', 'z', '0', '9', "'", ' ', '-', '\n', 'ing', 'es', 'The', 'runs', "it's"),
    maxLength: 60,
  }),
);

describe('createAnalyzer (property)', () => {
  it('gives pure ASCII the terms of the full Unicode path', () => {
    const analyzer = createAnalyzer();
    fc.assert(
      fc.property(asciiText, fc.integer({ min: 1, max: 80 }), (text, maxTermLength) => {
        const sized = createAnalyzer({ maxTermLength });
        for (const subject of [analyzer, sized]) {
          // A trailing non-ASCII word sends the same text down the Unicode path.
          const unicode = subject.analyze(`${text} é`);
          expect(unicode.at(-1)).toBe('é');
          expect(subject.analyze(text)).toEqual(unicode.slice(0, -1));
        }
      }),
      { numRuns: 500 },
    );
  });

  it('answers a repeated text from memory without sharing the returned array', () => {
    const analyzer = createAnalyzer();
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), fc.string({ maxLength: 60 }), (first, second) => {
        const fresh = createAnalyzer({ maxTermLength: 64 });
        const once = analyzer.analyze(first);
        once.push('mutated');
        expect(analyzer.analyze(first)).toEqual(fresh.analyze(first));
        expect(analyzer.analyze(second)).toEqual(fresh.analyze(second));
        expect(analyzer.analyze(first)).toEqual(fresh.analyze(first));
      }),
    );
  });

  it('shares one default analyzer and builds a separate one for any option', () => {
    expect(createAnalyzer()).toBe(createAnalyzer({}));
    expect(createAnalyzer({ cjk: 'ngram' })).not.toBe(createAnalyzer());
    expect(createAnalyzer({ cjk: 'ngram' }).name).toBe(createAnalyzer().name);
  });
});

// The token pattern as it was before runs were matched in pieces: unbounded, one match a run.
const CJK = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}';
const UNSPACED = '\\p{Script=Thai}\\p{Script=Lao}\\p{Script=Khmer}\\p{Script=Myanmar}';
const UNBOUNDED = new RegExp(
  `([${CJK}]+)|([[${UNSPACED}\\p{M}]--[\\p{P}]]+)|[[\\p{L}\\p{N}\\p{M}]--[${CJK}${UNSPACED}]]+(?:['’][\\p{L}\\p{N}]+)*`,
  'gv',
);
const thai = new Intl.Segmenter('th', { granularity: 'word' });

/** A naive model of the default analyzer's terms (ngram CJK, default stopwords and stems). */
function referenceTerms(text: string, maxTermLength: number): string[] {
  const terms: string[] = [];
  for (const match of normalizeText(text).matchAll(UNBOUNDED)) {
    if (match[1] !== undefined) {
      const chars = Array.from(match[1]);
      chars.forEach((char, index) => {
        if (!DEFAULT_STOPWORDS.has(char)) terms.push(char);
        if (index + 1 < chars.length) terms.push(char + chars[index + 1]);
      });
    } else if (match[2] !== undefined) {
      for (let start = 0; start < match[2].length; start += 256) {
        for (const { segment, isWordLike } of thai.segment(match[2].slice(start, start + 256))) {
          if (isWordLike === true && !DEFAULT_STOPWORDS.has(segment)) terms.push(segment);
        }
      }
    } else {
      const word = match[0].slice(0, maxTermLength);
      const term = DEFAULT_STOPWORDS.has(word) ? '' : stemEnglish(word);
      if (term !== '') terms.push(term);
    }
  }
  return terms;
}

// Runs of one character, some as long as a piece of the token pattern or a little longer or
// shorter, of every kind of run: CJK (one astral), unspaced, words, marks and apostrophes.
const run = fc
  .tuple(
    fc.constantFrom('长', '𠀀', 'カ', 'ก', 'ж', 'é', 'a', '1', '\u0301', "'", '’', ' ', '.', 'の'),
    fc.oneof(
      fc.integer({ min: 1, max: 4 }),
      fc.integer({ min: RUN_PIECE - 2, max: RUN_PIECE + 2 }),
      fc.integer({ min: 2 * RUN_PIECE - 1, max: 2 * RUN_PIECE + 1 }),
    ),
  )
  .map(([char, count]) => char.repeat(count));
// A run after an apostrophe: a word's suffix, which takes any letter (Han and Thai too).
const suffix = run.map((text) => `'${text}`);
const runText = fc
  .array(fc.oneof(run, suffix, fc.string({ unit: 'grapheme', maxLength: 8 })), { maxLength: 6 })
  .map((parts) => parts.join(''));

describe('createAnalyzer on runs longer than one piece of its pattern (property)', () => {
  it('gives the terms of the unbounded pattern, across the edges of the pieces', () => {
    fc.assert(
      fc.property(runText, fc.constantFrom(64, 100_000), (text, maxTermLength) => {
        const analyzer = createAnalyzer({ maxTermLength });
        expect(analyzer.analyze(text)).toEqual(referenceTerms(text, maxTermLength));
      }),
      { numRuns: 200 },
    );
  });
});
