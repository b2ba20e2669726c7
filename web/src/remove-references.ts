import type { BadReference } from './api.ts';

/** A span of a text, `from` inclusive, `to` exclusive (UTF-16 offsets). */
export interface TextSpan {
  from: number;
  to: number;
}

/** The spans of a message's own bad references that still read as written (manifest ones have none). */
export function spansOf(text: string, references: readonly BadReference[]): TextSpan[] {
  return references.flatMap((reference) => {
    if (reference.source !== 'message' || reference.offset === undefined) return [];
    const to = reference.offset + reference.raw.length;
    return text.slice(reference.offset, to) === reference.raw ? [{ from: reference.offset, to }] : [];
  });
}

const BLANK = /[ \t]/u;

/**
 * Deletes `spans` from `text` — each a reference — without leaving a doubled space where one
 * stood between words, and trims the result. Spans must not overlap.
 * @example removeSpans('see [a.md:9:9] and [b.md:1] now', spans) // → 'see and now'
 */
export function removeSpans(text: string, spans: readonly TextSpan[]): string {
  let result = text;
  for (const span of [...spans].sort((a, b) => b.from - a.from)) {
    let { from, to } = span;
    const before = result[from - 1];
    const after = result[to];
    if (after !== undefined && BLANK.test(after) && (before === undefined || /\s/u.test(before))) to++;
    else if (before !== undefined && BLANK.test(before) && (after === undefined || after === '\n')) from--;
    result = result.slice(0, from) + result.slice(to);
  }
  return result.trim();
}
