import { CtxloomError } from '../../core/index.ts';

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Refuses JSON text nested deeper than `maxDepth` before it is parsed: throws `parse-error`
 * naming `file`, and the line and column of the first value deeper than that (the root value
 * is depth 0, as `parseJsonTree` counts). One linear pass that skips strings (escaped
 * quotes included) with `indexOf`; it checks nothing else, so invalid JSON passes it and is
 * left to the parser. `JSON.parse` would otherwise spend seconds on two million `[` and
 * accept 5,000 levels that `JSON.stringify` later cannot write back (a `RangeError`).
 */
export function checkJsonDepth(text: string, file: string, maxDepth: number): void {
  // Containers open at `index`: the depth of a value that starts there.
  let depth = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    // Every character below `[` but the quote (spaces, `,`, `:`, digits) is skipped with one test.
    if (code < OPEN_BRACKET) {
      if (code !== QUOTE) continue;
      index = stringEnd(text, index);
      if (index < 0) return; // unterminated: the parser names it
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      depth++;
      if (depth > maxDepth) {
        // The container itself is allowed; anything in it (a literal too) is past the limit.
        const next = nextNonSpace(text, index + 1);
        const after = text.charCodeAt(next);
        if (next < text.length && after !== CLOSE_BRACE && after !== CLOSE_BRACKET) {
          throw tooDeep(text, next, file, maxDepth);
        }
      }
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth--;
    }
  }
}

function nextNonSpace(text: string, from: number): number {
  let index = from;
  for (;;) {
    const code = text.charCodeAt(index);
    if (code !== 0x20 && code !== 0x0a && code !== 0x0d && code !== 0x09) return index;
    index++;
  }
}

/** Index of the quote closing the string opened at `from`, or -1 when there is none. */
function stringEnd(text: string, from: number): number {
  let at = text.indexOf('"', from + 1);
  while (at >= 0) {
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
    at = text.indexOf('"', at + 1);
  }
  return -1;
}

function tooDeep(text: string, index: number, file: string, maxDepth: number): CtxloomError {
  let line = 1;
  for (let at = text.indexOf('\n'); at >= 0 && at < index; at = text.indexOf('\n', at + 1)) line++;
  return new CtxloomError({
    code: 'parse-error',
    message: `invalid JSON: nesting deeper than ${maxDepth}`,
    file,
    line,
    column: index - (text.lastIndexOf('\n', index - 1) + 1) + 1,
  });
}
