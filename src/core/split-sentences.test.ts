import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sentenceSegments, splitSentences } from './split-sentences.ts';

describe('splitSentences', () => {
  it('splits Chinese and English punctuation but not dotted names or decimals', () => {
    expect(splitSentences('读 ods.orders。金额保留 2.5 位？ok. Done!').map((span) => span.text)).toEqual([
      '读 ods.orders。',
      '金额保留 2.5 位？',
      'ok.',
      'Done!',
    ]);
  });

  it('keeps dotted names, versions, decimals and file names whole', () => {
    expect(
      splitSentences(
        'Use table dw.orders v2.5 for the join. We must keep 3.5% margin. Read spec.md first.',
      ).map((span) => span.text),
    ).toEqual(['Use table dw.orders v2.5 for the join.', 'We must keep 3.5% margin.', 'Read spec.md first.']);
  });

  it('reads long texts in slices and returns pieces that concatenate back', () => {
    const text = 'A line of text. Another one!\n'.repeat(2000);
    expect(sentenceSegments(text).join('')).toBe(text);
    expect(splitSentences(text)).toHaveLength(4000);
  });

  it('returns spans that are verbatim, trimmed and non-empty', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('a', ' ', '.', '。', '\n', '中', '?', '；') }),
        (text) => {
          for (const span of splitSentences(text)) {
            expect(text.slice(span.start, span.end)).toBe(span.text);
            expect(span.text).toBe(span.text.trim());
            expect(span.text.length).toBeGreaterThan(0);
          }
        },
      ),
    );
  });
});
