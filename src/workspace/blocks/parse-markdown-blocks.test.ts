import fc from 'fast-check';
import type { Heading, Root } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';
import { describe, expect, it } from 'vitest';
import { flattenBlocks, getBlockById } from './flatten-blocks.ts';
import { parseMarkdownBlocks, parseMarkdownDocument } from './parse-markdown-blocks.ts';

const seedProfile = [
  '# 基本信息',
  '25岁，计算机专业研究生',
  '',
  '## 教育背景',
  '本科: 软件工程',
  '研究生: 计算机科学',
  '',
  '## 工作经验',
  '3年后端开发',
  '',
  '# 学习目标',
  '深入理解分布式系统原理',
].join('\n');

const textOf = (node: unknown): string => {
  const value = node as { type: string; value?: string; alt?: string; children?: unknown[] };
  if (typeof value.value === 'string' && value.type !== 'html') return value.value;
  if (value.type === 'image' || value.type === 'imageReference') return value.alt ?? '';
  return (value.children ?? []).map(textOf).join('');
};

const summarize = (content: string) =>
  flattenBlocks(parseMarkdownBlocks(content, 'f.md')).map((block) => [
    block.id,
    block.source.startLine,
    block.source.endLine,
  ]);

describe('parseMarkdownBlocks', () => {
  it('reproduces the block tree and line ranges of the seed example', () => {
    const blocks = parseMarkdownBlocks(seedProfile, 'profile.md');
    expect(blocks.map((block) => block.id)).toEqual(['基本信息', '学习目标']);
    const [basic, goals] = blocks;
    expect(basic?.source).toEqual({ file: 'profile.md', startLine: 1, endLine: 2, sectionEndLine: 9 });
    expect(basic?.content).toBe('25岁，计算机专业研究生');
    expect(
      basic?.children.map((child) => [child.id, child.source.startLine, child.source.endLine, child.content]),
    ).toEqual([
      ['基本信息/教育背景', 4, 6, '本科: 软件工程\n研究生: 计算机科学'],
      ['基本信息/工作经验', 8, 9, '3年后端开发'],
    ]);
    expect(goals?.source).toMatchObject({ startLine: 11, endLine: 12 });
    expect(goals?.level).toBe(1);
  });

  it('treats setext headings as headings and spans both of their lines', () => {
    expect(summarize('Title\n=====\n\ntext\n\nSub\n---\nmore\n')).toEqual([
      ['Title', 1, 4],
      ['Title/Sub', 6, 8],
    ]);
  });

  it('ignores # inside fenced and indented code, HTML and front matter', () => {
    const content = [
      '---',
      'title: x',
      '# not a heading',
      '---',
      '# Real',
      '```md',
      '# fenced',
      '```',
      '    # indented',
      '<div>',
      '# html?',
      '</div>',
    ].join('\n');
    const document = parseMarkdownDocument(content, 'f.md');
    expect(flattenBlocks(document.blocks).map((block) => block.id)).toEqual(['Real']);
    expect(document.frontMatter).toEqual({ startLine: 1, endLine: 4 });
    expect(document.blocks[0]?.source).toMatchObject({ startLine: 5, endLine: 12 });
  });

  it('does not mistake front matter closing fences for a setext underline', () => {
    expect(summarize('---\ntitle: x\n---\ntext\n# A\n')).toEqual([['A', 5, 5]]);
  });

  it('disambiguates duplicate sibling headings deterministically', () => {
    const content = '# A\n## X\n## X\n## X~2\n## X\n# A\n';
    expect(summarize(content).map(([id]) => id)).toEqual(['A', 'A/X', 'A/X~3', 'A/X~2', 'A/X~4', 'A~2']);
  });

  it('nests skipped levels under the nearest shallower heading', () => {
    expect(summarize('# A\n### C\n## B\n#### D\n').map(([id]) => id)).toEqual(['A', 'A/C', 'A/B', 'A/B/D']);
  });

  it('flattens inline markup in headings and escapes slashes in ids', () => {
    const blocks = parseMarkdownBlocks('# **TCP/IP** and `code` [link](http://x)\nbody', 'f.md');
    expect(blocks[0]?.heading).toBe('TCP/IP and code link');
    expect(blocks[0]?.id).toBe('TCP\\/IP and code link');
    expect(getBlockById(blocks, 'TCP\\/IP and code link')?.content).toBe('body');
  });

  it('keeps text before the first heading as the preamble', () => {
    const document = parseMarkdownDocument('intro line\n\n# A\n', 'f.md');
    expect(document.preamble).toEqual({ content: 'intro line', startLine: 1, endLine: 1 });
  });

  it('handles CRLF line endings with the same line numbers', () => {
    expect(summarize('# A\r\nx\r\n\r\n## B\r\ny\r\n')).toEqual([
      ['A', 1, 2],
      ['A/B', 4, 5],
    ]);
  });

  it('names a block "untitled" when its heading is empty', () => {
    expect(summarize('#\ntext\n')).toEqual([['untitled', 1, 2]]);
  });

  it('agrees with the mdast tree on every top-level heading (property)', () => {
    const line = fc.oneof(
      fc.constantFrom(
        '# A',
        '## B',
        '### 子',
        'text',
        '',
        '```',
        '~~~',
        '---',
        '===',
        '> # q',
        '- # li',
        '    # code',
        '<!-- # -->',
        '#no',
        '#\t学习',
        '# **粗体** `code` [链接](x) ~~del~~ &amp; \\*',
        '# 标题 ##',
        '## #',
        '# a \\#',
        '###### six',
        '# www.example.com and a@b.co',
        '  ## indented',
        'a | b',
        '--|--',
        '- item',
        '  # in item',
        '> quote',
        '<pre>',
        '</pre>',
      ),
      fc.string({ maxLength: 12 }),
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 40 }), (lines) => {
        const content = lines.join('\n');
        const document = parseMarkdownDocument(content, 'f.md');
        const frontEnd = document.frontMatter?.endLine ?? 0;
        const source = content
          .split(/\r\n|\r|\n/u)
          .map((text, index) => (index < frontEnd ? '' : text))
          .join('\n');
        const tree: Root = fromMarkdown(source, {
          extensions: [gfm()],
          mdastExtensions: [gfmFromMarkdown()],
        });
        const expected = tree.children
          .filter((node): node is Heading => node.type === 'heading')
          .map((node) => [node.depth, node.position?.start.line, textOf(node).replace(/\s+/gu, ' ').trim()]);
        const flat = flattenBlocks(document.blocks);
        expect(flat.map((block) => [block.level, block.source.startLine, block.heading])).toEqual(expected);
        const ids = new Set(flat.map((block) => block.id));
        expect(ids.size).toBe(flat.length);
        for (const block of flat) {
          expect(block.source.endLine).toBeGreaterThanOrEqual(block.source.startLine);
          expect(block.source.sectionEndLine).toBeGreaterThanOrEqual(block.source.endLine);
          for (const child of block.children) {
            expect(child.source.startLine).toBeGreaterThan(block.source.endLine);
            expect(child.source.sectionEndLine).toBeLessThanOrEqual(block.source.sectionEndLine);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('parses a 5 MB file into blocks', () => {
    const section = `## 小节\n${'分布式系统中的一致性与可用性需要权衡。'.repeat(20)}\n\n`;
    const content = `# 根\n${section.repeat(Math.ceil((5 * 1024 * 1024) / Buffer.byteLength(section)))}`;
    const blocks = parseMarkdownBlocks(content, 'big.md');
    expect(blocks[0]?.children.length).toBeGreaterThan(1000);
    expect(blocks[0]?.children[1]?.id).toBe('根/小节~2');
  });
});

describe('parseMarkdownDocument in pieces', () => {
  const line = fc.oneof(
    fc.constantFrom(
      '# A',
      '## B',
      '# **强调** 标题',
      '# 标题 ##',
      '## #',
      '# www.example.com',
      'text',
      '',
      '```',
      '~~~',
      '  ```',
      '- ```',
      '> ```',
      '<!--',
      '-->',
      '<pre>',
      '</pre>',
      '  <script>',
      '---',
      '===',
      '- item',
      '  # in item',
      '> quote',
      '    # code',
      'a | b',
      '--|--',
      '- a',
      '* b',
      '+ c',
      '-',
      '- - -',
      '* * *',
      '  - nested',
      '    - deeper',
      '1. one',
      '2. two',
      '3) three',
      '  continued',
      '<div>',
      '</div>',
      '| t |',
      '|---|',
      '- # in list',
      '1. # in list',
    ),
    fc.string({ maxLength: 8 }),
  );

  it('gives the same block tree as a whole-document parse, wherever it cuts (property)', () => {
    fc.assert(
      fc.property(fc.array(line, { maxLength: 80 }), fc.integer({ min: 0, max: 40 }), (lines, chunkChars) => {
        const content = lines.join('\n');
        const whole = parseMarkdownDocument(content, 'f.md', { chunkChars: 1e9 });
        const pieces = parseMarkdownDocument(content, 'f.md', { chunkChars });
        expect(pieces.blocks).toEqual(whole.blocks);
      }),
      { numRuns: 1000 },
    );
  });
});
