import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createAnalyzer } from './analyzer.ts';

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
