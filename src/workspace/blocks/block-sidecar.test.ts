import { describe, expect, it } from 'vitest';
import { DEFAULT_RENAME_WORK, parseBlockSidecar, sidecarPathFor, syncBlockSidecar } from './block-sidecar.ts';
import { flattenBlocks, getBlockById } from './flatten-blocks.ts';
import { parseMarkdownBlocks } from './parse-markdown-blocks.ts';

const before = '# 基本信息\n25岁\n## 教育背景\n本科: 软件工程\n# 学习目标\n分布式系统\n';

describe('syncBlockSidecar', () => {
  it('names the sidecar after the file, as profile.md → profile.blocks.json', () => {
    expect(sidecarPathFor('profile.md')).toBe('profile.blocks.json');
    expect(sidecarPathFor('notes/a.b.md')).toBe('notes/a.b.blocks.json');
    expect(sidecarPathFor('README')).toBe('README.blocks.json');
  });

  it('keeps short ids across a heading rename so old ids still resolve', () => {
    const first = parseMarkdownBlocks(before, 'profile.md');
    const { sidecar } = syncBlockSidecar({ file: 'profile.md', blocks: first });
    const educationId = getBlockById(first, '基本信息/教育背景')?.shortId as string;
    const goalsId = getBlockById(first, '学习目标')?.shortId as string;
    expect(educationId).toMatch(/^[0-9a-f]{6}$/u);

    const renamed = parseMarkdownBlocks(
      before.replace('教育背景', '学历').replace('学习目标', '学习目标与动机'),
      'profile.md',
    );
    const stored = parseBlockSidecar(JSON.stringify(sidecar), 'profile.blocks.json');
    const { changed } = syncBlockSidecar({ file: 'profile.md', blocks: renamed, previous: stored });
    expect(changed).toBe(true);
    expect(getBlockById(renamed, educationId)?.id).toBe('基本信息/学历');
    expect(getBlockById(renamed, goalsId)?.id).toBe('学习目标与动机');
  });

  it('reports no change when the file is unchanged and gives new blocks fresh ids', () => {
    const blocks = parseMarkdownBlocks(before, 'profile.md');
    const { sidecar } = syncBlockSidecar({ file: 'profile.md', blocks });
    expect(
      syncBlockSidecar({
        file: 'profile.md',
        blocks: parseMarkdownBlocks(before, 'profile.md'),
        previous: sidecar,
      }).changed,
    ).toBe(false);
    const grown = parseMarkdownBlocks(`${before}# 新块\n内容\n`, 'profile.md');
    syncBlockSidecar({ file: 'profile.md', blocks: grown, previous: sidecar });
    const ids = grown.map((block) => block.shortId);
    expect(new Set(ids).size).toBe(3);
  });

  it('rejects a malformed sidecar with a typed error naming it', () => {
    expect(() => parseBlockSidecar('{"version":2}', 'profile.blocks.json')).toThrow(/profile.blocks.json/u);
    expect(() => parseBlockSidecar('{', 'profile.blocks.json')).toThrow(
      /invalid JSON: .*profile.blocks.json:1:2/u,
    );
  });

  it('syncs 20,000 blocks whose headings and bodies all changed within its rename work limit', () => {
    // Issue #27: every vanished entry was compared with every new block (15–60 s here).
    const text = Array.from({ length: 20_000 }, (_, index) => `## Heading ${index}\nbody ${index}\n`).join(
      '\n',
    );
    const { sidecar } = syncBlockSidecar({ file: 'big.md', blocks: parseMarkdownBlocks(text, 'big.md') });
    const changed = parseMarkdownBlocks(
      text.replace(/Heading/gu, 'Titel').replace(/body/gu, 'text'),
      'big.md',
    );
    const synced = syncBlockSidecar({ file: 'big.md', blocks: changed, previous: sidecar });
    expect(synced.renameWork).toBeGreaterThan(0);
    expect(synced.renameWork).toBeLessThanOrEqual(DEFAULT_RENAME_WORK + 100);
    const ids = flattenBlocks(changed).map((block) => block.shortId);
    expect(new Set(ids).size).toBe(20_000);
    // Unchanged paths are found without any rename search, whatever the size.
    const same = parseMarkdownBlocks(text, 'big.md');
    expect(syncBlockSidecar({ file: 'big.md', blocks: same, previous: sidecar })).toMatchObject({
      changed: false,
      renameWork: 0,
    });
  });
});
