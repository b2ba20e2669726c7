import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_TABLE_CELLS } from './check-markdown-bounds.ts';
import { collapseTableRows } from './collapse-table-rows.ts';
import { parseMarkdownDocument } from './parse-markdown-blocks.ts';

/** A GFM table of `rows` rows (header and delimiter included) × `cells` cells. */
const table = (rows: number, cells: number) => {
  const row = (cell: string) => `|${Array.from({ length: cells }, () => cell).join('|')}|`;
  return [row('a'), row('-'), ...Array.from({ length: rows - 2 }, () => row('b'))];
};

describe('collapseTableRows', () => {
  it('collapses the body rows of a 200 × 2,000 table and keeps its header and delimiter', () => {
    // Issue #27: micromark tokenized all 400,000 cells of this 0.8 MB table (9–16 s).
    const lines = table(200, 2000);
    const { lines: parsed, collapsed } = collapseTableRows(lines);
    expect(collapsed).toHaveLength(198);
    expect(parsed.slice(0, 2)).toEqual(lines.slice(0, 2));
    // The work left for the parser: the header and delimiter rows' cells, and two per body row.
    const cells = parsed.join('\n').split('|').length - 1;
    expect(cells).toBe(2 * 2001 + 198);
  });

  it('parses the 0.8 MB table under a heading into one block holding it whole', () => {
    const lines = ['# 数据', '', ...table(200, 2000), '', '## 结论', 'ok'];
    const document = parseMarkdownDocument(lines.join('\n'), 'table.md');
    expect(document.blocks.map((block) => block.id)).toEqual(['数据']);
    expect(document.blocks[0]?.children.map((block) => block.id)).toEqual(['数据/结论']);
    expect(document.blocks[0]?.content).toBe(lines.slice(2, 202).join('\n'));
  });

  it('keeps a line followed by a possible delimiter row, and everything when a link definition may span lines', () => {
    expect(collapseTableRows(['| a | b |', '|---|---|', '| c | d |']).collapsed).toEqual([2]);
    expect(collapseTableRows(['| a | b |', '> |---|---|']).collapsed).toEqual([]);
    expect(collapseTableRows(['[a', '| b |', ']: /url']).collapsed).toEqual([]);
    expect(collapseTableRows(['<!--', '| a --> |', '# x']).collapsed).toEqual([]);
    expect(collapseTableRows(['| a <br> b |', '# x']).collapsed).toEqual([0]);
  });

  it('reads the text of a setext heading spanning a collapsed row from the original line', () => {
    const document = parseMarkdownDocument('| **a** b |\n===\ntext\n', 'f.md');
    expect(document.blocks.map((block) => block.heading)).toEqual(['| a b |']);
  });

  it('gives the same block tree as a parse without collapsing (property)', () => {
    const line = fc.oneof(
      fc.constantFrom(
        '# A',
        '## B',
        'text',
        '',
        '---',
        '===',
        '| a | b |',
        '|---|---|',
        '| - |',
        '|:-:|',
        '| c |',
        '|x',
        '| a **b** |',
        '| <br> |',
        '| [l](u) |',
        '| "t" |',
        '> | q |',
        '> |---|',
        '- | li |',
        '  | in item |',
        '    | code |',
        '```',
        '<!--',
        '| --> |',
        '<pre>',
        '| </pre> |',
        '[a]: /u',
        '[a',
        ']: /u "t',
        '| " |',
        'a | b',
        '--|--',
      ),
      fc.string({ maxLength: 8 }).map((text) => `|${text}`),
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 60 }), (lines) => {
        const content = lines.join('\n');
        const collapsed = parseMarkdownDocument(content, 'f.md');
        const whole = parseMarkdownDocument(content, 'f.md', { collapseTableRows: false });
        expect(collapsed.blocks).toEqual(whole.blocks);
      }),
      { numRuns: 500 },
    );
  });
});

describe('the table-cell bound', () => {
  it('parses no table at all in a section without a heading-like line', () => {
    const text = ['# 表', '', 'intro', ...table(2, MAX_TABLE_CELLS)].join('\n');
    expect(parseMarkdownDocument(text, 'wide.md').blocks.map((block) => block.id)).toEqual(['表']);
  });

  it('refuses a table too wide to parse with too-large naming the limit, file and line', () => {
    const columns = MAX_TABLE_CELLS / 2 + 10;
    // The table's section holds a setext heading, so it must be parsed; the header row's
    // cells are within the limit, the delimiter row's pass it.
    const text = ['# 表', '', '标题', '===', ...table(2, columns)].join('\n');
    expect(() => parseMarkdownDocument(text, 'wide.md')).toThrow(
      expect.objectContaining({
        code: 'too-large',
        file: 'wide.md',
        line: 6,
        message: expect.stringContaining(`${MAX_TABLE_CELLS}`),
      }),
    );
  });
});
