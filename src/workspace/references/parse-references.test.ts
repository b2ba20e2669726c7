import { CtxloomError } from 'ctxloom';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseReferences } from './parse-references.ts';

describe('parseReferences', () => {
  it('finds line and block references inline, with offsets', () => {
    const text = '这段是什么意思 [guidance.md:12:30] 和 [profile.md#学习目标/已有基础]，还有 [笔记.md:7]';
    expect(parseReferences(text)).toEqual([
      {
        type: 'lines',
        path: 'guidance.md',
        startLine: 12,
        endLine: 30,
        raw: '[guidance.md:12:30]',
        offset: text.indexOf('[guidance'),
      },
      {
        type: 'block',
        path: 'profile.md',
        block: '学习目标/已有基础',
        raw: '[profile.md#学习目标/已有基础]',
        offset: text.indexOf('[profile'),
      },
      {
        type: 'lines',
        path: '笔记.md',
        startLine: 7,
        endLine: 7,
        raw: '[笔记.md:7]',
        offset: text.indexOf('[笔记'),
      },
    ]);
  });

  it('accepts references to files in sub-folders', () => {
    expect(parseReferences('see [notes/raft.md#选主]')).toMatchObject([
      { path: 'notes/raft.md', block: '选主' },
    ]);
  });

  it('ignores Markdown links, plain brackets and names without an extension', () => {
    expect(parseReferences('[guide.md](guide.md) [todo] [x:1:2] [a.md:] [a.md#]')).toEqual([]);
  });

  it('reads line numbers of any length (an out-of-range reference, never plain text)', () => {
    expect(parseReferences('[a.md:1:9999999999]')).toMatchObject([{ startLine: 1, endLine: 9_999_999_999 }]);
    expect(parseReferences(`[a.md:${'9'.repeat(40)}]`)).toMatchObject([
      { startLine: Number.MAX_SAFE_INTEGER, endLine: Number.MAX_SAFE_INTEGER },
    ]);
  });

  it('rejects a reversed line range with an error naming the reference', () => {
    expect(() => parseReferences('[a.md:30:12]')).toThrow(CtxloomError);
    expect(() => parseReferences('[a.md:30:12]')).toThrow(/\[a.md:30:12\]/u);
    expect(() => parseReferences('[a.md:0:1]')).toThrow(/empty line range/u);
  });

  it('returns references that round-trip to their raw text, or throws a typed error (property)', () => {
    const piece = fc.oneof(
      fc.string({ maxLength: 10 }),
      fc.constantFrom('[', ']', ':', '#', '.md', '学习', '\n', '(', 'a.md', '/'),
      fc.tuple(fc.nat(50), fc.nat(50)).map(([a, b]) => `[f.md:${a}:${b}]`),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), (pieces) => {
        const text = pieces.join('');
        try {
          for (const reference of parseReferences(text)) {
            expect(text.slice(reference.offset, reference.offset + reference.raw.length)).toBe(reference.raw);
            if (reference.type === 'lines')
              expect(reference.endLine).toBeGreaterThanOrEqual(reference.startLine);
          }
        } catch (error) {
          expect(CtxloomError.is(error, 'invalid-argument')).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });
});
