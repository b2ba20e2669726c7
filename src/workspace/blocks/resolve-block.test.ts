import { CtxloomError } from 'ctxloom';
import { describe, expect, it } from 'vitest';
import { parseMarkdownBlocks } from './parse-markdown-blocks.ts';
import { resolveBlock } from './resolve-block.ts';

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
