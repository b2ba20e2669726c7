import { describe, expect, it } from 'vitest';
import { parseContextConfig } from '../../src/workspace/config/parse-context-config.ts';
import { type Block, flattenBlocks, parseMarkdownBlocks } from '../../src/workspace/index.ts';
import { fencesOf, readPage } from '../doc-examples.test-support.ts';

// docs/spec.md digests the seeds; two of its blocks are inputs ctxloom takes as they are.
const page = await readPage('docs/spec.md');
const fences = fencesOf(page);

describe('docs/spec.md, seed 003', () => {
  it("parses the Markdown chunking example into the tree the digest lists, as ctxloom's block parser", () => {
    const markdown = fences.find((fence) => fence.language === 'markdown');
    const after = page.slice(page.indexOf('parses to (line numbers 1-based):'));
    // `- \`基本信息\` (L1–L2), content \`25岁…\``, children indented by two spaces.
    const listed = [...after.matchAll(/^( *)- `([^`]+)` \(L(\d+)–L(\d+)\), content `([^`]+)`$/gmu)].map(
      ([, indent, heading, start, end, content]) => ({
        depth: (indent as string).length / 2,
        heading,
        startLine: Number(start),
        endLine: Number(end),
        content: (content as string).replaceAll('\\n', '\n'),
      }),
    );
    expect(listed).toHaveLength(4);
    const depthOf = (block: Block) => block.id.split('/').length - 1;
    const parsed = flattenBlocks(parseMarkdownBlocks(markdown?.code ?? '', 'profile.md')).map((block) => ({
      depth: depthOf(block),
      heading: block.heading,
      startLine: block.source.startLine,
      endLine: block.source.endLine,
      content: block.content,
    }));
    expect(parsed).toEqual(listed);
  });

  it("accepts the compile manifest example as a session's context-config.json", () => {
    const json = fences.find((fence) => fence.language === 'json' && fence.code.includes('"profileBlocks"'));
    const manifest = parseContextConfig(json?.code ?? '', 'docs/spec.md');
    expect(manifest.systemPrompt).toEqual([
      { type: 'global', file: 'system-prompt.md' },
      { type: 'session', file: 'session-prompt.md' },
    ]);
    expect(manifest.profileBlocks).toEqual(['学习目标', '已有基础']);
    expect(manifest.chatHistory).toMatchObject({ source: 'messages.json', strategy: 'full' });
    expect(manifest.query).toBe('这段是什么意思 [guidance.md:12:30]');
    expect(manifest.references).toEqual([
      { path: 'guidance.md', startLine: 12, endLine: 30 },
      { path: 'ground-truth.md', block: '薛定谔方程' },
    ]);
  });
});
