/** A sentence and where it sits in its text (`text.slice(start, end) === sentence`). */
export interface SentenceSpan {
  text: string;
  start: number;
  end: number;
}

const CJK_END = /[。！？；!?;\n]/u;

/**
 * Splits Chinese and English text into sentences: after `。！？；!?;` and line breaks, and
 * after `.` followed by whitespace (so `dw.orders` and `3.5` stay whole). Spans are trimmed
 * and always verbatim substrings of the input, so they can serve as evidence quotes.
 */
export function splitSentences(text: string): SentenceSpan[] {
  const spans: SentenceSpan[] = [];
  let start = 0;
  const push = (end: number) => {
    let from = start;
    let to = end;
    while (from < to && /\s/u.test(text[from] as string)) from++;
    while (to > from && /\s/u.test(text[to - 1] as string)) to--;
    if (to > from) spans.push({ text: text.slice(from, to), start: from, end: to });
    start = end;
  };
  for (let index = 0; index < text.length; index++) {
    const char = text[index] as string;
    if (CJK_END.test(char)) push(index + 1);
    else if (char === '.' && (index + 1 === text.length || /\s/u.test(text[index + 1] as string)))
      push(index + 1);
  }
  push(text.length);
  return spans;
}
