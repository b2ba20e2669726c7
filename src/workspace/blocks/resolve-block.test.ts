import { CtxloomError } from 'ctxloom';
import { describe, expect, it } from 'vitest';
import { parseMarkdownBlocks } from './parse-markdown-blocks.ts';
import {
  DEFAULT_CLOSEST_BLOCK_WORK,
  findClosestBlock,
  indexBlocks,
  MAX_FUZZY_BLOCK_ID_CHARS,
  resolveBlock,
} from './resolve-block.ts';

const profile = parseMarkdownBlocks(
  '# 学习目标\n理解共识\n## 已有的基础\n会写 Go\n# 基本信息\n25岁\n',
  'profile.md',
);

describe('resolveBlock', () => {
  it('finds a block by its exact heading path', () => {
    expect(resolveBlock(profile, '学习目标', { file: 'profile.md' })).toMatchObject({
      match: 'id',
      block: { content: '理解共识' },
    });
  });

  it('falls back to the closest block after a heading rename and warns', () => {
    const resolved = resolveBlock(profile, '学习目标/已有基础', { file: 'profile.md' });
    expect(resolved.match).toBe('closest');
    expect(resolved.block.id).toBe('学习目标/已有的基础');
    expect(resolved.warning).toContain('学习目标/已有的基础');
  });

  it('throws not-found naming the file, the id and the closest block when nothing is near', () => {
    const error = (() => {
      try {
        resolveBlock(profile, '量子力学', { file: 'profile.md' });
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(CtxloomError.is(error, 'not-found')).toBe(true);
    expect((error as CtxloomError).message).toContain('量子力学');
    expect((error as CtxloomError).file).toBe('profile.md');
    expect((error as CtxloomError).details?.closest).toBeTypeOf('string');
  });

  it('refuses the fallback when it is turned off', () => {
    expect(() => resolveBlock(profile, '学习目标/已有基础', { file: 'profile.md', fallback: false })).toThrow(
      /closest block is "学习目标\/已有的基础"/u,
    );
  });
});

describe('resolveBlock on pathological ids', () => {
  const headings = Array.from({ length: 2000 }, (_, index) => `## heading ${index} of a long file`).join(
    '\n\n',
  );
  const blocks = parseMarkdownBlocks(headings, 'big.md');

  it('refuses a fuzzy search for an over-long id with a typed error naming the file', () => {
    expect(() => resolveBlock(blocks, 'x'.repeat(1000), { file: 'big.md' })).toThrow(
      expect.objectContaining({ code: 'too-large', file: 'big.md' }),
    );
    expect(MAX_FUZZY_BLOCK_ID_CHARS).toBeLessThan(1000);
  });

  it('finds the closest block among 2,000 headings within its work limit, skipping by length', () => {
    const closest = findClosestBlock(blocks, 'heading 1999 of a long fil');
    expect(closest).toMatchObject({ block: { id: 'heading 1999 of a long file' }, complete: true });
    // Myers costs ⌈26/32⌉ × 27 ≈ 27 word operations per comparison: two per block at most.
    expect(closest?.work).toBeLessThanOrEqual(2000 * 2 * 30);
    const longest = findClosestBlock(blocks, 'y'.repeat(MAX_FUZZY_BLOCK_ID_CHARS));
    expect(longest?.work).toBeLessThanOrEqual(DEFAULT_CLOSEST_BLOCK_WORK);
  });

  it('stops at the work limit and says the search was cut short', () => {
    const closest = findClosestBlock(blocks, 'heading 1999 of a long fil', { maxWork: 1000 });
    expect(closest?.complete).toBe(false);
    expect(closest?.work).toBeLessThanOrEqual(1000);
    const resolved = resolveBlock(parseMarkdownBlocks('# alpha beta\n\ntext\n', 'a.md'), 'alpha bet', {
      file: 'a.md',
    });
    expect(resolved.warning).not.toContain('work limit');
  });
});

describe('indexBlocks', () => {
  it('finds every block by id or short id as the unindexed lookup does, first in document order winning', () => {
    const blocks = parseMarkdownBlocks('# a\n## b\n# c\n## b\n# a\n', 'i.md');
    const [first, second] = blocks;
    if (first === undefined || second === undefined) throw new Error('expected blocks');
    first.shortId = 'c'; // a short id equal to a later V1 id: the earlier block wins, as getBlockById
    second.shortId = 'zz01';
    const index = indexBlocks(blocks);
    for (const id of ['a', 'a/b', 'c', 'c/b', 'a~2', 'zz01']) {
      expect(resolveBlock(blocks, id, { file: 'i.md', index }).block).toBe(
        resolveBlock(blocks, id, { file: 'i.md' }).block,
      );
    }
    expect(index.get('c')).toBe(first);
  });
});
