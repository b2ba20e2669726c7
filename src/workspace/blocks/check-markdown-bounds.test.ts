import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CtxloomError } from '../../core/index.ts';
import { createWorkspaceToolset } from '../tools/create-workspace-toolset.ts';
import { openWorkspace } from '../workspace.ts';
import {
  MAX_MARKDOWN_CHARS,
  MAX_MARKDOWN_NESTING,
  MAX_NESTED_MARKER_WORK,
  MAX_PARSED_PIECE_LINES,
} from './check-markdown-bounds.ts';
import { parseMarkdownBlocks } from './parse-markdown-blocks.ts';

const tooLarge = (line: number, column: number) =>
  expect.objectContaining({ code: 'too-large', file: 'deep.md', line, column });

describe('Markdown bounds, checked before parsing', () => {
  it('refuses 5,000 nested list markers or quotes on one line, naming line and column', () => {
    const marker = MAX_MARKDOWN_NESTING + 1;
    expect(() => parseMarkdownBlocks(`# a\n\n${'- '.repeat(5000)}x\n`, 'deep.md')).toThrow(
      tooLarge(3, 2 * (marker - 1) + 1),
    );
    expect(() => parseMarkdownBlocks(`${'> '.repeat(5000)}x\n`, 'deep.md')).toThrow(
      tooLarge(1, 2 * (marker - 1) + 1),
    );
    expect(() => parseMarkdownBlocks(`${'1. '.repeat(5000)}x\n`, 'deep.md')).toThrow(
      tooLarge(1, 3 * (marker - 1) + 1),
    );
  });

  it('counts indentation as nesting and names the line where it goes too deep', () => {
    const lines = Array.from({ length: 40 }, (_, index) => `${'  '.repeat(index)}- item ${index}`);
    // Line n (1-based) has n − 1 indent levels plus its marker.
    expect(() => parseMarkdownBlocks(lines.join('\n'), 'deep.md')).toThrow(
      tooLarge(MAX_MARKDOWN_NESTING + 1, 2 * MAX_MARKDOWN_NESTING + 1),
    );
  });

  it('refuses many lines that each open nested containers, in one section', () => {
    // Each `  - - x` line (under one root item) adds one line and two markers: n lines cost n × 2n.
    const first = Math.floor(Math.sqrt(MAX_NESTED_MARKER_WORK / 2)) + 1;
    expect(() => parseMarkdownBlocks(`- a\n${'  - - x\n'.repeat(first + 100)}`, 'deep.md')).toThrow(
      expect.objectContaining({ code: 'too-large', file: 'deep.md', line: first + 1 }),
    );
    // The same lines split by headings are separate pieces, each within the limit.
    const sections = Array.from(
      { length: 4 },
      (_, index) => `# s${index}\n\n- a\n${'  - - x\n'.repeat(Math.ceil((first + 100) / 4))}`,
    );
    expect(parseMarkdownBlocks(sections.join('\n'), 'deep.md').map((block) => block.id)).toEqual([
      's0',
      's1',
      's2',
      's3',
    ]);
  });

  it('refuses text over the size limit before splitting it', () => {
    expect(() => parseMarkdownBlocks('x'.repeat(MAX_MARKDOWN_CHARS + 1), 'big.md')).toThrow(
      expect.objectContaining({ code: 'too-large', file: 'big.md' }),
    );
  });

  it('still parses ordinary nesting, thematic breaks and deep indentation inside code fences', () => {
    const text = [
      '# Notes',
      '',
      '> - quoted item',
      '>   - nested item',
      '',
      '* * *',
      '',
      '```yaml',
      `${' '.repeat(100)}- deep: yaml`,
      '```',
      '',
      '## Next',
      '1. one',
      '   1. one.one',
    ].join('\n');
    expect(
      parseMarkdownBlocks(text, 'ok.md').map((block) => block.children.map((child) => child.id)),
    ).toEqual([['Notes/Next']]);
  });

  it('reaches every caller through the workspace: readParsed and the read_block tool', async () => {
    const root = await mkdtemp(join(tmpdir(), 'ctxloom-deep-'));
    try {
      await mkdir(join(root, 's1'));
      await writeFile(join(root, 's1', 'deep.md'), `# Notes\n\n${'> '.repeat(5000)}x\n`);
      const workspace = openWorkspace({ root });
      await expect(workspace.readParsed(workspace.session('s1'), 'deep.md')).rejects.toMatchObject({
        code: 'too-large',
        file: 'deep.md',
        line: 3,
      });
      const tools = createWorkspaceToolset({ workspace, sessionId: 's1' });
      await expect(tools.read_block.run({ file: 'deep.md' })).rejects.toMatchObject({ code: 'too-large' });
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe('a run of text no blank line divides', () => {
  it('is refused past MAX_PARSED_PIECE_LINES with too-large naming the limit, file and line, and parsed below it', () => {
    const run = (count: number) => {
      const lines = ['# Title', ''];
      for (let index = 0; index < count; index++)
        lines.push(index % 50 === 49 ? '===' : `word ${index} more`);
      return lines.join('\n');
    };
    const error = (() => {
      try {
        parseMarkdownBlocks(run(MAX_PARSED_PIECE_LINES + 10), 'long.md');
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(CtxloomError.is(error, 'too-large')).toBe(true);
    expect((error as CtxloomError).file).toBe('long.md');
    expect((error as CtxloomError).line).toBe(3);
    expect((error as Error).message).toContain(String(MAX_PARSED_PIECE_LINES));
    // Below the limit the same shape parses into its setext sections.
    expect(parseMarkdownBlocks(run(2_000), 'ok.md').length).toBeGreaterThan(1);
  });
});
