import { describe, expect, it } from 'vitest';
import type { BadReference } from '../../web/src/api.ts';
import { removeSpans, spansOf } from '../../web/src/remove-references.ts';

const bad = (text: string, raw: string, from = 0): BadReference => ({
  raw,
  source: 'message',
  offset: text.indexOf(raw, from),
  path: raw.slice(1, raw.indexOf(':')),
  reason: 'missing-file',
  message: '',
});

describe('sending without the bad references', () => {
  it('removes exactly the named references, leaving single spaces', () => {
    const text = 'compare [nope.md:1:3] with [guidance.md:999:1000] and [guidance.md:1:2] please';
    const references = [bad(text, '[nope.md:1:3]'), bad(text, '[guidance.md:999:1000]')];
    expect(removeSpans(text, spansOf(text, references))).toBe('compare with and [guidance.md:1:2] please');
  });

  it('handles references at the start, the end, between CJK characters and twice', () => {
    const text = '[a.md:1] 看[b.md:2]的意思 [a.md:1]';
    const references = [bad(text, '[a.md:1]'), bad(text, '[b.md:2]'), bad(text, '[a.md:1]', 1)];
    expect(removeSpans(text, spansOf(text, references))).toBe('看的意思');
  });

  it('skips a reference the user has since edited, and manifest references', () => {
    const text = 'see [guidance.md:9:10] now';
    const references: BadReference[] = [
      { ...bad(text, '[guidance.md:9:10]'), raw: '[guidance.md:999:1000]' },
      { raw: '[x.md#y]', source: 'manifest', index: 0, path: 'x.md', reason: 'missing-file', message: '' },
    ];
    expect(spansOf(text, references)).toEqual([]);
  });
});
