/**
 * Default smallest chunk, in characters: 0 cuts at every safe heading, so most sections are
 * never handed to the parser at all (see `parseMarkdownDocument`).
 */
export const DEFAULT_CHUNK_CHARS = 0;

// A bullet list item at column 0 with content: it interrupts a paragraph, is never lazy
// continuation text nor a setext underline, and closes every container the line before left open.
const ROOT_ITEM = /^[-+*][ \t]+\S/u;
// An ordered item at column 0 with content: a cut where it certainly starts or continues a
// root list (after a blank line, numbered 1, or after an item of the same list).
const ORDERED_ITEM = /^(\d{1,9})([.)])[ \t]+\S/u;
const ROOT_ATX = /^#{1,6}(?:[ \t]|$)/u;
const THEMATIC_BREAK = /^([-*_])(?:[ \t]*\1){2,}[ \t]*$/u;
// An HTML block of CommonMark types 6–7 (any tag at the line start) runs to the next blank line.
const HTML_TO_BLANK = /^ {0,3}<[/A-Za-z]/u;
const FENCE = /^( {0,3})(`{3,}|~{3,})(.*)$/u;
// A fence or raw HTML block that may sit inside a container: after a quote or list marker,
// or indented 1–3 spaces (list-item continuation). Its end cannot be found lexically.
const UNSURE =
  /^(?: {1,3}|(?: {0,3}(?:>|[-+*][ \t]|\d{1,9}[.)][ \t])[\s>]*))(?:`{3,}|~{3,}|<(?:script|pre|style|textarea|!|\?))/iu;
const HTML_START = /^<(?:(script|pre|style|textarea)(?:[\s>]|$)|(!--)|(\?)|(![A-Za-z])|(!\[CDATA\[))/iu;
const RAW_ENDS = ['</script>', '</pre>', '</style>', '</textarea>'];

/**
 * Line indexes (0-based) where a Markdown document can be cut into independently parsable
 * pieces: a column-0 line after a blank line (a heading, a paragraph…), a column-0 ATX
 * heading or the line after one or after a column-0 thematic break, or a column-0 list item with content
 * (`- x`, not a thematic break; `3. x` where it certainly starts or continues a root list)
 * where no HTML block that runs to a blank line may be open —
 * outside any fenced code block or raw HTML block. Such a line closes every open container
 * and paragraph, so each piece parses to the same root headings as the whole (a long list is
 * cut between its root items: micromark took 2–5 s for one list of 4,000–8,000 items). Fences
 * and raw HTML are tracked only at column 0 (where they are certainly at the root); once one
 * opens where a container may hold it, no later cut is made. Cuts are at least `chunkChars`
 * apart (0: at every safe line).
 */
export function findChunkCuts(lines: readonly string[], chunkChars = DEFAULT_CHUNK_CHARS): number[] {
  const cuts: number[] = [];
  let fence: { char: string; length: number } | undefined;
  let htmlEnds: readonly string[] | undefined;
  let sinceCut = 0;
  let htmlToBlank = false;
  let orderedList: string | undefined;
  let afterClosing = false;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as string;
    sinceCut += line.length + 1;
    const blank = line.trim() === '';
    if (blank) htmlToBlank = false;
    if (fence !== undefined) {
      const match = FENCE.exec(line);
      const marker = match?.[2] ?? '';
      if (marker[0] === fence.char && marker.length >= fence.length && (match?.[3] ?? '').trim() === '')
        fence = undefined;
      continue;
    }
    if (htmlEnds !== undefined) {
      const lower = line.toLowerCase();
      if (htmlEnds.some((end) => lower.includes(end))) htmlEnds = undefined;
      continue;
    }
    if (UNSURE.test(line)) return cuts;
    const open = FENCE.exec(line);
    if (open !== null && !((open[2] as string)[0] === '`' && (open[3] as string).includes('`'))) {
      fence = { char: (open[2] as string)[0] as string, length: (open[2] as string).length };
      orderedList = undefined;
      afterClosing = false;
      continue;
    }
    const html = HTML_START.exec(line);
    if (html !== null) {
      const ends =
        html[1] !== undefined ? RAW_ENDS : html[2] ? ['-->'] : html[3] ? ['?>'] : html[4] ? ['>'] : [']]>'];
      const rest = line.slice(html[0].length).toLowerCase();
      if (!ends.some((end) => rest.includes(end))) htmlEnds = ends;
      orderedList = undefined;
      afterClosing = false;
      continue;
    }
    const afterBlank = (lines[index - 1] ?? '').trim() === '';
    const ordered = ORDERED_ITEM.exec(line);
    let orderedCut = false;
    if (ordered !== null) {
      orderedCut = orderedList === ordered[2] || afterBlank || ordered[1] === '1';
      orderedList = orderedCut ? ordered[2] : undefined;
    } else if (!blank && line[0] !== ' ' && line[0] !== '\t') {
      orderedList = undefined;
    }
    // After a blank line, a column-0 line closes every container and paragraph; so does a
    // column-0 ATX heading, and the line after one or after a column-0 thematic break.
    const safe =
      (afterBlank && !blank && line[0] !== ' ' && line[0] !== '\t') ||
      (!htmlToBlank &&
        ((ROOT_ITEM.test(line) && !THEMATIC_BREAK.test(line)) ||
          orderedCut ||
          ROOT_ATX.test(line) ||
          afterClosing));
    afterClosing = !htmlToBlank && (ROOT_ATX.test(line) || THEMATIC_BREAK.test(line));
    if (HTML_TO_BLANK.test(line)) htmlToBlank = true;
    if (safe && index > 0 && sinceCut - line.length - 1 >= chunkChars) {
      cuts.push(index);
      sinceCut = line.length + 1;
    }
  }
  return cuts;
}
