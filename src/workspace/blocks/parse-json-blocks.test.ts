import { CtxloomError } from 'ctxloom';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { flattenBlocks, getBlockById } from './flatten-blocks.ts';
import { parseJsonBlocks } from './parse-json-blocks.ts';

const config = `{
  "profileBlocks": ["学习目标", "已有基础"],
  "chatHistory": {
    "source": "messages.json",
    "strategy": "full"
  }
}`;

describe('parseJsonBlocks', () => {
  it('splits JSON into blocks by key path with line ranges', () => {
    const blocks = parseJsonBlocks(config, 'context-config.json');
    expect(
      flattenBlocks(blocks).map((block) => [block.id, block.source.startLine, block.source.sectionEndLine]),
    ).toEqual([
      ['profileBlocks', 2, 2],
      ['profileBlocks/0', 2, 2],
      ['profileBlocks/1', 2, 2],
      ['chatHistory', 3, 6],
      ['chatHistory/source', 4, 4],
      ['chatHistory/strategy', 5, 5],
    ]);
    expect(getBlockById(blocks, 'chatHistory/strategy')?.content).toBe('"full"');
  });

  it('reports invalid JSON as parse-error with line and column', () => {
    try {
      parseJsonBlocks('{\n  "a": 1,\n  "b": oops\n}', 'x.json');
      expect.unreachable();
    } catch (error) {
      expect(error).toMatchObject({ code: 'parse-error', file: 'x.json', line: 3, column: 8 });
    }
  });

  it('agrees with JSON.parse on every valid document and throws only parse-error otherwise (property)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.json(), fc.string({ maxLength: 40 })), (text) => {
        let expected: unknown;
        let valid = true;
        try {
          expected = JSON.parse(text);
        } catch {
          valid = false;
        }
        try {
          const blocks = parseJsonBlocks(text, 'x.json');
          expect(valid).toBe(true);
          if (expected !== null && typeof expected === 'object') {
            expect(blocks.length).toBe(Object.keys(expected).length);
          }
        } catch (error) {
          expect(valid).toBe(false);
          expect(CtxloomError.is(error, 'parse-error')).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });
});
