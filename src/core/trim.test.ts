import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createCharCounter } from '../testing/char-counter.ts';
import { TRIM_MARKER, trimToTokens } from './trim.ts';

const counter = createCharCounter();

describe('trimToTokens', () => {
  it('cuts at the last heading that fits before a sentence', () => {
    const text = '# A\nfirst part.\n\n## B\nsecond part is longer. More here.';
    const result = trimToTokens(text, 30, counter);
    expect(result?.text).toBe(`# A\nfirst part.${TRIM_MARKER}`);
    expect(result?.boundary).toBe('heading');
  });

  it('cuts Chinese text at a full stop', () => {
    const result = trimToTokens('第一句话。第二句话比较长一些。第三句。', 18, counter);
    expect(result?.text).toBe(`第一句话。${TRIM_MARKER}`);
    expect(result?.boundary).toBe('sentence');
  });

  it('returns the text unchanged when it fits, and undefined when not even the marker fits', () => {
    expect(trimToTokens('short', 10, counter)?.text).toBe('short');
    expect(trimToTokens('anything long', 5, counter)).toBeUndefined();
  });

  it('never exceeds the limit and never splits a surrogate pair', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 200 }),
        fc.integer({ min: 0, max: 120 }),
        (text, max) => {
          const result = trimToTokens(text, max, counter);
          if (result === undefined) return;
          expect(result.tokens).toBeLessThanOrEqual(max);
          expect(result.text.isWellFormed()).toBe(true);
        },
      ),
    );
  });
});
