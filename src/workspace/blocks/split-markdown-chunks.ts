/**
 * Default smallest chunk, in characters: 0 cuts at every safe heading, so most sections are
 * never handed to the parser at all (see `parseMarkdownDocument`).
 */
export const DEFAULT_CHUNK_CHARS = 0;

const ATX = /^#{1,6}(?:[ \t]|$)/u;
const FENCE = /^( {0,3})(`{3,}|~{3,})(.*)$/u;
// A fence or raw HTML block that may sit inside a container: after a quote or list marker,
// or indented 1–3 spaces (list-item continuation). Its end cannot be found lexically.
const UNSURE =
  /^(?: {1,3}|(?: {0,3}(?:>|[-+*][ \t]|\d{1,9}[.)][ \t])[\s>]*))(?:`{3,}|~{3,}|<(?:script|pre|style|textarea|!|\?))/iu;
const HTML_START = /^<(?:(script|pre|style|textarea)(?:[\s>]|$)|(!--)|(\?)|(![A-Za-z])|(!\[CDATA\[))/iu;
const RAW_ENDS = ['</script>', '</pre>', '</style>', '</textarea>'];

/**
 * Line indexes (0-based) where a Markdown document can be cut into independently parsable
 * pieces: a column-0 ATX heading after a blank line, outside any fenced code block or raw
 * HTML block. Such a heading closes every open container and paragraph, so each piece parses
 * to the same block structure as the whole. Fences and raw HTML are tracked only at column 0
 * (where they are certainly at the root); once one opens where a container may hold it, no
 * later cut is made. Cuts are at least `chunkChars` apart (0: at every safe heading).
 */
export function findChunkCuts(lines: readonly string[], chunkChars = DEFAULT_CHUNK_CHARS): number[] {
  const cuts: number[] = [];
  let fence: { char: string; length: number } | undefined;
  let htmlEnds: readonly string[] | undefined;
  let sinceCut = 0;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as string;
    sinceCut += line.length + 1;
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
      continue;
    }
    const html = HTML_START.exec(line);
    if (html !== null) {
      const ends =
        html[1] !== undefined ? RAW_ENDS : html[2] ? ['-->'] : html[3] ? ['?>'] : html[4] ? ['>'] : [']]>'];
      const rest = line.slice(html[0].length).toLowerCase();
      if (!ends.some((end) => rest.includes(end))) htmlEnds = ends;
      continue;
    }
    if (
      sinceCut - line.length - 1 >= chunkChars &&
      index > 0 &&
      ATX.test(line) &&
      (lines[index - 1] as string).trim() === ''
    ) {
      cuts.push(index);
      sinceCut = line.length + 1;
    }
  }
  return cuts;
}
