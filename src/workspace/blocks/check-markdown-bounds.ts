import { CtxloomError } from '../../core/index.ts';

/** Largest Markdown text parsed, in UTF-16 units (the sandbox's read limit, 8 MiB). */
export const MAX_MARKDOWN_CHARS = 8 * 1024 * 1024;

/** Deepest container nesting (quotes and list items) on one line, counting 2 columns of indent as a level. */
export const MAX_MARKDOWN_NESTING = 32;

/**
 * Limit of the nested-marker work of one parse piece: (lines holding two or more container
 * markers) × (markers on those lines). micromark's cost grows with this product (`- - x` × 2,000
 * lines took 3 s, `- ` × 32 × 1,000 lines 26 s); 1 M is under a second.
 */
export const MAX_NESTED_MARKER_WORK = 1_000_000;

/**
 * Most lines opening a list item or quote one parse piece may hold. Root list items start
 * pieces of their own (see `findChunkCuts`), so this bounds items nested under one root item
 * and long quotes: micromark spends ~0.4 ms an item on a busy 2-core machine (8,000 nested
 * items took 3.2 s), so 3,000 is about a second.
 */
export const MAX_CONTAINER_LINES = 3000;

/**
 * Most lines one piece that must be parsed may hold: a run of text that no blank line or
 * heading cuts (one paragraph, continued) is parsed in one micromark call, whose setext
 * resolution grows faster than linearly (40,000 lines with an underline every 50 took 1.8 s,
 * 160,000 took 18 s); 20,000 lines is well under a second.
 */
export const MAX_PARSED_PIECE_LINES = 20_000;

/** Throws `too-large` when a piece that must be parsed is longer than {@link MAX_PARSED_PIECE_LINES}. */
export function checkParsedPieceLines(options: {
  lines: readonly string[];
  file: string;
  firstLine: number;
}): void {
  if (options.lines.length <= MAX_PARSED_PIECE_LINES) return;
  throw new CtxloomError({
    code: 'too-large',
    message: `Markdown has a run of more than ${MAX_PARSED_PIECE_LINES} lines that no blank line or heading divides; the limit is ${MAX_PARSED_PIECE_LINES}`,
    file: options.file,
    line: options.firstLine,
    column: 1,
  });
}

const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/u;
const THEMATIC_BREAK = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/u;

/** Where one line's containers end: how deep they nest and the column past the last marker. */
interface LineNesting {
  /** Container markers (`>`, `-`, `+`, `*`, `1.`, `1)`) at the start of the line. */
  markers: number;
  /** Markers plus ⌊leading indent / 2⌋, stopped as soon as it passes the limit. */
  depth: number;
  /** 1-based column of the marker that passed the limit, or of the line end. */
  column: number;
}

function lineNesting(line: string, limit: number): LineNesting {
  let index = 0;
  let markers = 0;
  let indent = 0;
  while (index < line.length && (line[index] === ' ' || line[index] === '\t')) {
    indent += line[index] === '\t' ? 4 : 1;
    index++;
  }
  let depth = Math.floor(indent / 2);
  while (index < line.length && depth <= limit) {
    const char = line[index] as string;
    let width = 0;
    if (char === '>') width = 1;
    else if (
      (char === '-' || char === '+' || char === '*') &&
      /^[ \t]|^$/u.test(line.slice(index + 1, index + 2))
    )
      width = 1;
    else {
      const ordered = /^\d{1,9}[.)](?=[ \t]|$)/u.exec(line.slice(index, index + 11));
      if (ordered !== null) width = ordered[0].length;
    }
    if (width === 0) break;
    markers++;
    depth++;
    if (depth > limit) return { markers, depth, column: index + 1 };
    index += width;
    while (index < line.length && (line[index] === ' ' || line[index] === '\t')) index++;
  }
  return { markers, depth, column: index + 1 };
}

/** Options of {@link checkMarkdownBounds}. */
export interface CheckMarkdownBoundsOptions {
  /** The lines of one piece parsed at once. */
  lines: readonly string[];
  /** File named in errors. */
  file: string;
  /** 1-based line number of `lines[0]` in the file. Default 1. */
  firstLine?: number;
}

/**
 * Cheap pre-scan before micromark parses a piece of Markdown, whose cost grows much faster
 * than linearly with container nesting (`- ` × 5,000 on one line took 83 s, then overflowed
 * the stack). Throws `too-large` naming file, line and column when one line nests deeper than
 * {@link MAX_MARKDOWN_NESTING}, or when the piece's nested-marker work passes
 * {@link MAX_NESTED_MARKER_WORK}, or when it holds more than {@link MAX_CONTAINER_LINES} lines
 * opening a list item or quote. Lines inside a root fenced code block are skipped. Linear
 * in the piece: each line is scanned only up to its first content character.
 */
export function checkMarkdownBounds(options: CheckMarkdownBoundsOptions): void {
  const firstLine = options.firstLine ?? 1;
  let fence: string | undefined;
  let nestedLines = 0;
  let nestedMarkers = 0;
  let containerLines = 0;
  for (const [index, line] of options.lines.entries()) {
    const fenceMatch = FENCE.exec(line);
    if (fence !== undefined) {
      if (fenceMatch?.[1]?.startsWith(fence) && (fenceMatch[2] ?? '').trim() === '') fence = undefined;
      continue;
    }
    if (fenceMatch !== null && !(fenceMatch[1]?.startsWith('`') && fenceMatch[2]?.includes('`'))) {
      fence = fenceMatch[1];
      continue;
    }
    if (THEMATIC_BREAK.test(line)) continue;
    const nesting = lineNesting(line, MAX_MARKDOWN_NESTING);
    if (nesting.depth > MAX_MARKDOWN_NESTING)
      throw new CtxloomError({
        code: 'too-large',
        message: `Markdown nests deeper than ${MAX_MARKDOWN_NESTING} quotes or list items`,
        file: options.file,
        line: firstLine + index,
        column: nesting.column,
      });
    if (nesting.markers > 0 && ++containerLines > MAX_CONTAINER_LINES)
      throw new CtxloomError({
        code: 'too-large',
        message: `Markdown has more than ${MAX_CONTAINER_LINES} lines opening list items or quotes in one section (nested under one root list item, or in one quote); the limit is ${MAX_CONTAINER_LINES}`,
        file: options.file,
        line: firstLine + index,
        column: 1,
      });
    if (nesting.markers < 2) continue;
    nestedLines++;
    nestedMarkers += nesting.markers;
    if (nestedLines * nestedMarkers > MAX_NESTED_MARKER_WORK)
      throw new CtxloomError({
        code: 'too-large',
        message: `Markdown has too many lines opening nested quotes or list items (${nestedLines} such lines in one section; the limit is ${MAX_NESTED_MARKER_WORK} line × marker steps)`,
        file: options.file,
        line: firstLine + index,
        column: 1,
      });
  }
}

/** Throws `too-large` naming `file` when `content` is longer than {@link MAX_MARKDOWN_CHARS}. */
export function checkMarkdownSize(content: string, file: string): void {
  if (content.length > MAX_MARKDOWN_CHARS)
    throw new CtxloomError({
      code: 'too-large',
      message: `Markdown of ${content.length} characters is over the ${MAX_MARKDOWN_CHARS}-character limit`,
      file,
    });
}

/**
 * Most table cells (`|`-separated, counted on the lines handed to the parser after body rows
 * are collapsed) one parse piece may hold. micromark tokenizes each cell (~25 µs on a busy
 * 2-core machine), so 40,000 is about a second; a single header and delimiter row of 20,000
 * columns each reaches it.
 */
export const MAX_TABLE_CELLS = 40_000;

/**
 * Throws `too-large` naming file, line and the limit when the lines of one parse piece hold
 * more than {@link MAX_TABLE_CELLS} `|` characters on lines that may be table rows (lines
 * holding a `|`). Linear in the piece.
 */
export function checkTableWidth(options: CheckMarkdownBoundsOptions): void {
  const firstLine = options.firstLine ?? 1;
  let cells = 0;
  for (const [index, line] of options.lines.entries()) {
    let at = line.indexOf('|');
    while (at >= 0) {
      cells++;
      at = line.indexOf('|', at + 1);
    }
    if (cells > MAX_TABLE_CELLS)
      throw new CtxloomError({
        code: 'too-large',
        message: `Markdown has more than ${MAX_TABLE_CELLS} table cells (\`|\`) in one section, outside collapsible table rows; the limit is ${MAX_TABLE_CELLS}`,
        file: options.file,
        line: firstLine + index,
        column: 1,
      });
  }
}
