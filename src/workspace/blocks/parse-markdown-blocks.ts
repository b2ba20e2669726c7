import type { Nodes, Root } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';
import type { Block } from './block.ts';
import { disambiguateSegments, toIdSegment } from './block-path.ts';
import {
  checkMarkdownBounds,
  checkMarkdownSize,
  checkParsedPieceLines,
  checkTableWidth,
} from './check-markdown-bounds.ts';
import { collapseTableRows } from './collapse-table-rows.ts';
import { findChunkCuts } from './split-markdown-chunks.ts';

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
 * quote belongs to the surrounding block). Ids are V1 heading paths. Input that would stall
 * the parser — over 8 MiB, or nesting quotes/lists too deeply — is refused first with
 * `too-large` naming file, line and column (see `checkMarkdownBounds`).
 * @example
 * parseMarkdownBlocks('# 基本信息\n25岁\n## 教育背景\n本科', 'profile.md')[0]?.children[0]?.id
 * // → '基本信息/教育背景'
 */
export function parseMarkdownBlocks(content: string, file: string): Block[] {
  return parseMarkdownDocument(content, file).blocks;
}

/** Options of {@link parseMarkdownDocument}. */
export interface ParseMarkdownOptions {
  /**
   * Large files are parsed in pieces cut at safe root headings (see `findChunkCuts`), because
   * micromark's cost grows faster than linearly with document size. Smallest piece in
   * characters, ≥ 0; default 0 (cut at every safe heading). The block tree is the same for any value.
   */
  chunkChars?: number;
  /**
   * Collapse table body rows before parsing (see `collapseTableRows`). Default true; the block
   * tree is the same either way, only the work differs (false is for tests comparing the two).
   */
  collapseTableRows?: boolean;
}

/** {@link parseMarkdownBlocks} plus the preamble, the front matter and the lines. */
export function parseMarkdownDocument(
  content: string,
  file: string,
  options: ParseMarkdownOptions = {},
): MarkdownDocument {
  checkMarkdownSize(content, file);
  const lines = content.split(/\r\n|\r|\n/u);
  const frontMatter = findFrontMatter(lines);
  // Blank the front matter out (keeping line numbers) so `---` is not read as a setext
  // underline; line endings are normalised so pieces can be cut by line index.
  const frontEnd = frontMatter?.endLine ?? 0;
  const parsed = lines.map((line, index) => (index < frontEnd ? '' : line)).join('\n');
  const headings = findHeadings(parsed, options.chunkChars, file, options.collapseTableRows ?? true);
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
    const { startLine, endLine: headingEnd } = heading;
    const block: Block = {
      id: '',
      heading: heading.text.replace(/\s+/gu, ' ').trim(),
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

/** micromark extension that turns off every inline (text) construct of CommonMark and GFM. */
const STRUCTURE_ONLY = {
  disable: {
    null: [
      'attention',
      'autolink',
      'characterEscape',
      'characterReference',
      'codeText',
      'hardBreakEscape',
      'htmlText',
      'labelEnd',
      'labelStartImage',
      'labelStartLink',
      'emailAutolink',
      'protocolAutolink',
      'wwwAutolink',
      'gfmFootnoteCall',
      'gfmPotentialFootnoteCall',
      'strikethrough',
      'tasklistCheck',
    ],
  },
};

const ATX_START = /^#{1,6}(?:[ \t]|$)/u;

/**
 * Whether a piece (after a cut) may hold a root heading other than a column-0 ATX heading on
 * its first line: an ATX-like line anywhere else, or a setext-like underline right after a
 * non-blank line (after a blank line, or first in the piece, there is no paragraph to underline).
 */
function mayHoldHeading(lines: readonly string[]): boolean {
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as string;
    if (MAYBE_ATX.test(line)) {
      if (index > 0 || !ATX_START.test(line)) return true;
    } else if (MAYBE_UNDERLINE.test(line) && index > 0 && (lines[index - 1] as string).trim() !== '') {
      return true;
    }
  }
  return false;
}

const MAYBE_ATX = /^ {0,3}#{1,6}(?:[ \t]|$)/u;
const MAYBE_UNDERLINE = /^ {0,3}(?:=+|-+)[ \t]*$/u;

/** The heading on a cut line (a column-0 ATX heading, by construction of the cuts). */
function cutHeading(line: string, lineNumber: number): HeadingInfo {
  const depth = (/^#{1,6}/u.exec(line)?.[0] ?? '#').length;
  const raw = line
    .slice(depth)
    .replace(/(?:^|[ \t]+)#+[ \t]*$/u, '')
    .trim();
  let text = raw;
  if (INLINE_MARKUP.test(raw)) {
    const first = fromMarkdown(line, { extensions: FULL_EXTENSIONS, mdastExtensions: MDAST_EXTENSIONS })
      .children[0];
    if (first?.type === 'heading') text = headingText(first);
  }
  return { depth, startLine: lineNumber, endLine: lineNumber, text };
}

interface HeadingInfo {
  depth: number;
  startLine: number;
  endLine: number;
  text: string;
}

// Characters that may start inline markup (emphasis, code, links, escapes, entities, HTML,
// strikethrough, autolink literals); a heading without them is its raw text.
const INLINE_MARKUP = /[*_`[\]\\&<~!:@]|www\./u;

/**
 * Top-level headings of a document: block structure from a parse without inline constructs
 * (they never change it, and micromark's inline resolvers dominate the cost), piece by piece
 * at safe cuts; heading text from a full parse of the heading's own source when it may
 * contain inline markup.
 */
function findHeadings(
  source: string,
  chunkChars: number | undefined,
  file: string,
  collapseRows: boolean,
): HeadingInfo[] {
  const lines = source.split('\n');
  const cuts = findChunkCuts(lines, chunkChars);
  const headings: HeadingInfo[] = [];
  const bounds = [0, ...cuts, lines.length];
  // Every piece is checked before any is parsed, so a bad file fails fast and whole. A piece
  // after a cut starts with a root ATX heading; when no other line could be a root heading
  // (ATX- or setext-like), that heading is the piece's only one: no parse needed. Table body
  // rows are collapsed (their cells never change structure) and the cells left are bounded.
  const pieces: {
    from: number;
    pieceLines: string[];
    parse: { lines: string[]; collapsed: number[] } | undefined;
    heading: boolean;
  }[] = [];
  for (let piece = 0; piece + 1 < bounds.length; piece++) {
    const from = bounds[piece] as number;
    const pieceLines = lines.slice(from, bounds[piece + 1]);
    checkMarkdownBounds({ lines: pieceLines, file, firstLine: from + 1 });
    if (piece > 0 && !mayHoldHeading(pieceLines)) {
      pieces.push({ from, pieceLines, parse: undefined, heading: ATX_START.test(pieceLines[0] as string) });
      continue;
    }
    const parse = collapseRows ? collapseTableRows(pieceLines) : { lines: pieceLines, collapsed: [] };
    checkTableWidth({ lines: parse.lines, file, firstLine: from + 1 });
    checkParsedPieceLines({ lines: parse.lines, file, firstLine: from + 1 });
    pieces.push({ from, pieceLines, parse, heading: false });
  }
  // Consecutive pieces that need a parse are parsed together up to PARSE_GROUP_CHARS or
  // PARSE_GROUP_UNDERLINES (a cut is safe wherever it falls; one call per tiny piece costs
  // ~0.3–0.6 ms, and micromark's setext resolver is quadratic in the underlines of one parse).
  let group: ParseGroup | undefined;
  const flush = (): void => {
    if (group !== undefined) headings.push(...parseGroup(group));
    group = undefined;
  };
  for (const { from, pieceLines, parse, heading } of pieces) {
    if (parse === undefined) {
      // A piece without a parse does not end the group (the headings are sorted at the end).
      if (heading) headings.push(cutHeading(pieceLines[0] as string, from + 1));
      continue;
    }
    if (
      group !== undefined &&
      (group.chars >= PARSE_GROUP_CHARS || group.underlines >= PARSE_GROUP_UNDERLINES)
    )
      flush();
    const current: ParseGroup = group ?? {
      from,
      original: [],
      parsed: [],
      collapsed: [],
      chars: 0,
      underlines: 0,
    };
    group = current;
    // Lines of skipped pieces since the group's last piece become closed HTML comments (at
    // column 0 one closes every container and paragraph, as the skipped piece's cut did): the
    // line numbers stay, and the next piece starts with nothing open.
    while (current.from + current.original.length < from) {
      current.original.push('<!-- -->');
      current.parsed.push('<!-- -->');
    }
    for (const index of parse.collapsed) current.collapsed.push(index + current.original.length);
    for (const line of pieceLines) current.original.push(line);
    for (const line of parse.lines) {
      current.parsed.push(line);
      current.chars += line.length + 1;
      if (MAYBE_UNDERLINE.test(line)) current.underlines++;
    }
  }
  flush();
  return headings.sort((a, b) => a.startLine - b.startLine);
}

/** Smallest text, in characters, parsed at once when consecutive pieces need a parse. */
const PARSE_GROUP_CHARS = 8192;
/** Most setext-like underlines parsed at once when consecutive pieces need a parse. */
const PARSE_GROUP_UNDERLINES = 64;

const STRUCTURE_EXTENSIONS = [gfm(), STRUCTURE_ONLY];
const FULL_EXTENSIONS = [gfm()];
const MDAST_EXTENSIONS = [gfmFromMarkdown()];

/** Consecutive pieces parsed at once: lines `from`… of the file, table rows collapsed in `parsed`. */
interface ParseGroup {
  from: number;
  original: string[];
  parsed: string[];
  /** 0-based indexes (in the group) of collapsed lines. */
  collapsed: number[];
  chars: number;
  underlines: number;
}

/**
 * Root headings of a group, with heading text from the original lines where a heading spans
 * a collapsed row or may hold inline markup.
 */
function parseGroup({ original, parsed, collapsed, from }: ParseGroup): HeadingInfo[] {
  const headings: HeadingInfo[] = [];
  const text = parsed.join('\n');
  const tree: Root = fromMarkdown(text, {
    extensions: STRUCTURE_EXTENSIONS,
    mdastExtensions: MDAST_EXTENSIONS,
  });
  const collapsedLines = new Set(collapsed.map((index) => index + 1));
  for (const node of tree.children) {
    if (node.type !== 'heading') continue;
    const raw = headingText(node);
    let title = raw;
    const firstLine = node.position?.start.line ?? 1;
    const lastLine = node.position?.end.line ?? 1;
    let spansCollapsed = false;
    for (let line = firstLine; line <= lastLine && !spansCollapsed; line++)
      spansCollapsed = collapsedLines.has(line);
    const start = node.position?.start.offset;
    const end = node.position?.end.offset;
    const source = spansCollapsed
      ? original.slice(firstLine - 1, lastLine).join('\n')
      : INLINE_MARKUP.test(raw) && start !== undefined && end !== undefined
        ? text.slice(start, end)
        : undefined;
    if (source !== undefined) {
      const first = fromMarkdown(source, { extensions: FULL_EXTENSIONS, mdastExtensions: MDAST_EXTENSIONS })
        .children[0];
      if (first?.type === 'heading') title = headingText(first);
    }
    headings.push({ depth: node.depth, startLine: firstLine + from, endLine: lastLine + from, text: title });
  }
  return headings;
}

function headingText(node: Nodes): string {
  if ('value' in node && typeof node.value === 'string' && node.type !== 'html') return node.value;
  if (node.type === 'image' || node.type === 'imageReference') return node.alt ?? '';
  if ('children' in node) return (node.children as Nodes[]).map(headingText).join('');
  return '';
}
