// A line that can be a table body row or paragraph text and nothing else: it starts with `|`
// (so it opens no block, is not blank and not a setext underline) and holds a character that
// no delimiter row has.
const BODY_ROW = /^\|[|\-: \t]*[^|\-: \t]/u;
// A line that may be a delimiter row (possibly after quote or list markers); blank lines are not.
const MAYBE_DELIMITER = /^[ \t>|:\-+*\d.)]*[|:-][ \t>|:\-+*\d.)]*$/u;
// A link reference definition needs `]:`; without one, no label or title spans lines.
const DEFINITION = /\]:/u;
// Starts of the HTML blocks that end at a line holding `>` (types 1–5 of CommonMark).
const RAW_HTML = /<(?:script|pre|style|textarea|[!?])/iu;

/** Result of {@link collapseTableRows}. */
export interface CollapsedRows {
  /** The lines with each collapsed row replaced by `|x`. */
  lines: string[];
  /** 0-based indexes of the collapsed lines, ascending. */
  collapsed: number[];
}

/**
 * Replaces the lines that can only be table body rows or paragraph text with `|x` before a
 * structure-only parse. micromark tokenizes every table cell (~25 µs each: a 200 × 2,000 table
 * took 9–16 s), yet a body row's cells never change the block structure: whether a line is a
 * row depends only on how it starts, and only the header and delimiter rows (kept: a line
 * followed by a possible delimiter row is never collapsed) decide whether there is a table.
 * Nothing is collapsed in a piece holding `]:` (a link definition's label or title may span
 * lines, and its label length counts), nor a line holding `>` where an HTML block that ends at
 * `>` may be open. Line numbers are kept; heading text spanning a collapsed line must be read
 * from the original lines.
 */
export function collapseTableRows(lines: readonly string[]): CollapsedRows {
  const text = lines.join('\n');
  if (!text.includes('|') || DEFINITION.test(text)) return { lines: [...lines], collapsed: [] };
  const rawHtml = RAW_HTML.test(text);
  const out = [...lines];
  const collapsed: number[] = [];
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as string;
    if (line.length <= 2 || line.charCodeAt(0) !== 0x7c || !BODY_ROW.test(line)) continue;
    if (rawHtml && line.includes('>')) continue;
    const next = lines[index + 1];
    if (next !== undefined && MAYBE_DELIMITER.test(next)) continue;
    out[index] = '|x';
    collapsed.push(index);
  }
  return { lines: out, collapsed };
}
