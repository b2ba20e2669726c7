import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ContextBlock } from './block.ts';
import { HistoryRecord } from './history-records.ts';
import type { Message } from './message.ts';
import { blockPreview, preview } from './report-previews.ts';

/** The preview as first specified: the first 240 characters, whitespace collapsed, cut at 120. */
function reference(text: string): string {
  const flat = text.slice(0, 240).replace(/\s+/gu, ' ').trim();
  return flat.length > 120 ? `${flat.slice(0, 119)}…` : flat;
}

const unit = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('a', 'Z', '中', '。', '😀', 'word') },
  { weight: 3, arbitrary: fc.constant(' ') },
  { weight: 1, arbitrary: fc.constantFrom('  ', '\n', '\t', '\u3000', '\u00a0', '\r\n') },
);

describe('preview', () => {
  it('equals the first 240 characters collapsed and cut at 120, whatever the whitespace', () => {
    fc.assert(
      fc.property(
        fc.array(unit, { minLength: 20, maxLength: 200 }),
        fc.option(fc.integer({ min: 110, max: 130 })),
        (pieces, cut) => {
          // Also cut near the 120th character, where the preview's shortcut decides.
          const whole = pieces.join('');
          const text = cut === null ? whole : whole.slice(0, cut);
          expect(preview(text)).toBe(reference(text));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('cuts a clean long text at 119 characters and an ellipsis, and keeps a short one', () => {
    const long = 'word '.repeat(60);
    expect(preview(long)).toBe(`${long.slice(0, 119)}…`);
    // Whitespace at the 121st character: the head is collapsed the long way.
    const spaced = `${'x'.repeat(120)}\n\n${'y'.repeat(10)}`;
    expect(preview(spaced)).toBe(reference(spaced));
    expect(preview('  short  text ')).toBe('short text');
    // 120 characters then only whitespace: the collapsed text is 120 long, no ellipsis.
    expect(preview(`${'x'.repeat(120)} \n `)).toBe('x'.repeat(120));
    expect(preview(`${'x'.repeat(119)} ${'y'.repeat(5)}`)).toBe(`${'x'.repeat(119)}…`);
  });
});

describe('blockPreview with a record handed over', () => {
  const blockOf = (message: Message): ContextBlock => ({
    id: message.id,
    layer: 'history',
    source: 'history',
    content: String(message.content),
    tokens: 1,
    priority: 0.5,
    fingerprint: message.id,
    metadata: { message, index: 0 },
  });

  it("uses the record only when it is the block's message's", () => {
    const first: Message = { id: 'a', role: 'user', content: 'the first message' };
    const second: Message = { id: 'b', role: 'user', content: 'the second message' };
    const ofFirst = new HistoryRecord(first);
    // Another message's record, even one that holds a preview, is not read.
    ofFirst.previewContent = 'the second message';
    ofFirst.previewText = 'not the preview of the second message';
    expect(blockPreview(blockOf(second), ofFirst)).toBe('the second message');
    // The message's own record is read and filled (the preview kept for the next report).
    const own = new HistoryRecord(first);
    expect(blockPreview(blockOf(first), own)).toBe('the first message');
    expect(own.previewText).toBe('the first message');
    own.previewText = 'kept';
    expect(blockPreview(blockOf(first), own)).toBe('kept');
  });
});
