import { isHighSurrogate } from './surrogates.ts';

/** A sentence and where it sits in its text (`text.slice(start, end) === sentence`). */
export interface SentenceSpan {
  text: string;
  start: number;
  end: number;
}

// ICU's sentence rules (UAX #29) through the platform: `dw.orders`, `v2.5`, `3.5%`, `spec.md`
// and `e.g.` stay whole; `。！？` end Chinese sentences; line breaks end a sentence. Semicolons
// (`；`, or `;` before whitespace) end a clause too.
// Made at the first use: ICU's set-up costs ~15 ms, which every import of ctxloom paid.
let segmenter: Intl.Segmenter | undefined;
const CLAUSE_END = /；\s*|;\s+/gu;
/** Segmenting is super-linear on very long strings; text is read in slices of at most this many units. */
const SLICE = 8192;

/**
 * The sentences of `text` as verbatim pieces that concatenate back to `text` (each keeps
 * its terminator and the whitespace after it). The one sentence splitter of ctxloom, on
 * `Intl.Segmenter`. Long texts are read in slices cut at a line break where there is one.
 */
export function sentenceSegments(text: string): string[] {
  const pieces: string[] = [];
  let from = 0;
  while (from < text.length) {
    let to = Math.min(text.length, from + SLICE);
    if (to < text.length) {
      const lineEnd = text.lastIndexOf('\n', to - 1);
      if (lineEnd > from) to = lineEnd + 1;
      else if (isHighSurrogate(text.charCodeAt(to - 1))) to--;
    }
    segmenter ??= new Intl.Segmenter('en', { granularity: 'sentence' });
    for (const { segment } of segmenter.segment(text.slice(from, to))) {
      // Semicolons end a clause that lists a requirement on its own (`；`, or `;` before a space).
      let start = 0;
      for (const match of segment.matchAll(CLAUSE_END)) {
        const end = (match.index ?? 0) + match[0].length;
        if (end < segment.length) {
          pieces.push(segment.slice(start, end));
          start = end;
        }
      }
      pieces.push(start === 0 ? segment : segment.slice(start));
    }
    from = to;
  }
  return pieces;
}

/** The sentences of `text`, trimmed and non-empty, with their offsets (verbatim substrings). */
export function splitSentences(text: string): SentenceSpan[] {
  const spans: SentenceSpan[] = [];
  let offset = 0;
  for (const piece of sentenceSegments(text)) {
    let start = offset;
    let end = offset + piece.length;
    offset = end;
    while (start < end && /\s/u.test(text[start] as string)) start++;
    while (end > start && /\s/u.test(text[end - 1] as string)) end--;
    if (end > start) spans.push({ text: text.slice(start, end), start, end });
  }
  return spans;
}
