import { CtxloomError } from 'ctxloom';
import { describe, expect, it } from 'vitest';
import { parseMarkdownDocument } from '../blocks/parse-markdown-blocks.ts';
import { type LoadedFile, resolveReference } from './resolve-reference.ts';

const guidance = parseMarkdownDocument(
  '# 指南\n先讲直觉\n## 例子\n双缝实验\n波函数\n# 练习\n做题\n',
  'guidance.md',
);
const files = new Map<string, LoadedFile>([
  ['guidance.md', { path: 'guidance.md', lines: guidance.lines, blocks: guidance.blocks }],
]);
const lookup = (path: string) => files.get(path);

const errorOf = (run: () => unknown): CtxloomError => {
  try {
    run();
  } catch (error) {
    if (error instanceof CtxloomError) return error;
  }
  throw new Error('expected a CtxloomError');
};

describe('resolveReference', () => {
  it('reads exactly the referenced lines', () => {
    expect(
      resolveReference({ type: 'lines', path: 'guidance.md', startLine: 3, endLine: 5 }, lookup),
    ).toMatchObject({
      text: '## 例子\n双缝实验\n波函数',
      startLine: 3,
      endLine: 5,
    });
  });

  it('reads a block with its children through the block parser', () => {
    expect(resolveReference({ type: 'block', path: 'guidance.md', block: '指南' }, lookup)).toMatchObject({
      text: '# 指南\n先讲直觉\n## 例子\n双缝实验\n波函数',
      startLine: 1,
      endLine: 5,
      blockId: '指南',
    });
  });

  it('names a missing file', () => {
    const error = errorOf(() =>
      resolveReference({ type: 'lines', path: 'nope.md', startLine: 1, endLine: 2 }, lookup),
    );
    expect(error).toMatchObject({ code: 'not-found', file: 'nope.md' });
  });

  it('names a range beyond the end of the file with its length', () => {
    const error = errorOf(() =>
      resolveReference({ type: 'lines', path: 'guidance.md', startLine: 5, endLine: 30 }, lookup),
    );
    expect(error.message).toContain('lines 5-30');
    expect(error.message).toContain('it has 7 lines');
  });

  it('names a missing block and the closest existing one', () => {
    const error = errorOf(() =>
      resolveReference({ type: 'block', path: 'guidance.md', block: '作业' }, lookup),
    );
    expect(error).toMatchObject({ code: 'not-found', file: 'guidance.md', path: '作业' });
    expect(error.message).toMatch(/closest block is "/u);
  });

  it('falls back to a renamed block with a warning', () => {
    const resolved = resolveReference({ type: 'block', path: 'guidance.md', block: '指南/例题' }, lookup);
    expect(resolved.blockId).toBe('指南/例子');
    expect(resolved.warning).toContain('closest');
  });
});
