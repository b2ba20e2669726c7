import type { Heading, Nodes, Root } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';
import type { Block } from './block.ts';
import { disambiguateSegments, toIdSegment } from './block-path.ts';

/** Text before the first heading of a Markdown file, with its line range (empty when none). */
export interface MarkdownPreamble {
  content: string;
  startLine: number;
  endLine: number;
}

/** Result of {@link parseMarkdownDocument}. */
export interface MarkdownDocument {
  blocks: Block[];
  preamble: MarkdownPreamble | undefined;
  /** Line range of a YAML (`---`) or TOML (`+++`) front matter, when present. */
  frontMatter: { startLine: number; endLine: number } | undefined;
  /** The file's lines (split on `\r\n`, `\r` or `\n`, as CommonMark does). */
  lines: string[];
}

/**
 * Splits Markdown into a heading tree (seed 003). Parsed with `mdast-util-from-markdown`
 * (CommonMark + GFM), so ATX and setext headings count and `#` inside code fences, HTML or
 * front matter does not. Only top-level headings start blocks (a heading inside a list or
 * quote belongs to the surrounding block). Ids are V1 heading paths.
 * @example
 * parseMarkdownBlocks('# 基本信息\n25岁\n## 教育背景\n本科', 'profile.md')[0]?.children[0]?.id
 * // → '基本信息/教育背景'
 */
export function parseMarkdownBlocks(content: string, file: string): Block[] {
  return parseMarkdownDocument(content, file).blocks;
}

/** {@link parseMarkdownBlocks} plus the preamble, the front matter and the lines. */
export function parseMarkdownDocument(content: string, file: string): MarkdownDocument {
  const lines = content.split(/\r\n|\r|\n/u);
  const frontMatter = findFrontMatter(lines);
  let parsed = content;
  if (frontMatter !== undefined) {
    // Blank the front matter out (keeping line numbers) so `---` is not read as a setext underline.
    parsed = [...lines.map((line, index) => (index < frontMatter.endLine ? '' : line))].join('\n');
  }
  const tree: Root = fromMarkdown(parsed, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
  const headings = tree.children.filter((node): node is Heading => node.type === 'heading');
  const lastLine = lines.length;
  const firstContentLine = frontMatter === undefined ? 1 : frontMatter.endLine + 1;

  interface Draft {
    block: Block;
    headingEnd: number;
  }
  const drafts: Draft[] = [];
  const roots: Block[] = [];
  const stack: Draft[] = [];
  for (const heading of headings) {
    const startLine = heading.position?.start.line ?? 1;
    const headingEnd = heading.position?.end.line ?? startLine;
    const block: Block = {
      id: '',
      heading: headingText(heading).replace(/\s+/gu, ' ').trim(),
      level: heading.depth,
      content: '',
      children: [],
      source: { file, startLine, endLine: headingEnd, sectionEndLine: headingEnd },
    };
    while (stack.length > 0 && (stack.at(-1) as Draft).block.level >= heading.depth) stack.pop();
    const parent = stack.at(-1);
    if (parent === undefined) roots.push(block);
    else parent.block.children.push(block);
    const draft = { block, headingEnd };
    stack.push(draft);
    drafts.push(draft);
  }

  const trimEnd = (from: number, to: number): number => {
    let end = to;
    while (end > from && (lines[end - 1] ?? '').trim() === '') end--;
    return end;
  };
  for (let index = 0; index < drafts.length; index++) {
    const { block, headingEnd } = drafts[index] as Draft;
    const next = drafts[index + 1];
    const ownLimit = next === undefined ? lastLine : next.block.source.startLine - 1;
    block.source.endLine = trimEnd(headingEnd, ownLimit);
    let sectionLimit = lastLine;
    for (let later = index + 1; later < drafts.length; later++) {
      const candidate = (drafts[later] as Draft).block;
      if (candidate.level <= block.level) {
        sectionLimit = candidate.source.startLine - 1;
        break;
      }
    }
    block.source.sectionEndLine = trimEnd(headingEnd, sectionLimit);
    block.content = lines
      .slice(headingEnd, block.source.endLine)
      .join('\n')
      .replace(/^(?:[ \t]*\n)+/u, '');
  }
  assignPathIds(roots, '');

  const firstHeading = drafts[0]?.block.source.startLine ?? lastLine + 1;
  const preambleEnd = trimEnd(firstContentLine - 1, firstHeading - 1);
  const preambleText = lines.slice(firstContentLine - 1, preambleEnd).join('\n');
  const preamble =
    preambleText.trim() === ''
      ? undefined
      : { content: preambleText, startLine: firstContentLine, endLine: preambleEnd };
  return { blocks: roots, preamble, frontMatter, lines };
}

/** Sets V1 ids: each block's id is its parent's id plus its disambiguated heading segment. */
export function assignPathIds(blocks: Block[], prefix: string): void {
  const segments = disambiguateSegments(blocks.map((block) => toIdSegment(block.heading)));
  blocks.forEach((block, index) => {
    block.id = prefix === '' ? (segments[index] as string) : `${prefix}/${segments[index]}`;
    assignPathIds(block.children, block.id);
  });
}

function findFrontMatter(lines: readonly string[]): { startLine: number; endLine: number } | undefined {
  const fence = lines[0]?.trimEnd();
  if (fence !== '---' && fence !== '+++') return undefined;
  for (let index = 1; index < lines.length; index++) {
    const line = (lines[index] ?? '').trimEnd();
    if (line === fence || (fence === '---' && line === '...')) return { startLine: 1, endLine: index + 1 };
  }
  return undefined;
}

function headingText(node: Nodes): string {
  if ('value' in node && typeof node.value === 'string' && node.type !== 'html') return node.value;
  if (node.type === 'image' || node.type === 'imageReference') return node.alt ?? '';
  if ('children' in node) return (node.children as Nodes[]).map(headingText).join('');
  return '';
}
