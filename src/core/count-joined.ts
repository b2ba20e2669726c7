import type { TokenCounter } from './tokens.ts';

/** A text and its token count (e.g. a block's `content` and `tokens`). */
export interface CountedText {
  text: string;
  /** `countText(text)` with the counter passed to {@link countJoined}. */
  tokens: number;
}

/** How far from each end of a part a split point is looked for (UTF-16 units). */
const SEARCH_UNITS = 256;

/**
 * Tokens of `parts` joined by `separator`, exactly `counter.countText(joined)`, without
 * tokenising the parts again: each part's own count, plus the count of the few characters
 * around every join (from the part's last split point to the next part's first one — see
 * {@link TokenCounter.isSplitPoint}) minus what those characters cost on their own. A counter
 * without `isSplitPoint` counts the joined text in full.
 * @example
 * countJoined(counter, blocks.map((block) => ({ text: block.content, tokens: block.tokens })), '\n\n');
 */
export function countJoined(counter: TokenCounter, parts: readonly CountedText[], separator: string): number {
  if (parts.length === 0) return 0;
  if (parts.length === 1) return (parts[0] as CountedText).tokens;
  const isSplitPoint = counter.isSplitPoint;
  if (isSplitPoint === undefined) return counter.countText(parts.map((part) => part.text).join(separator));
  let total = 0;
  // Text since the last split point, not yet counted: a part's tail, separators, whole parts
  // without a split point, up to the next part's first split point.
  let pending = '';
  parts.forEach(({ text, tokens }, index) => {
    const first = firstSplit(text, isSplitPoint);
    if (first < 0) {
      pending += text;
    } else {
      const last = lastSplit(text, isSplitPoint, first);
      const head = text.slice(0, first);
      const tail = text.slice(last);
      // The part's middle (between two split points, or empty) keeps its tokens.
      const middle = tokens - counter.countText(head) - counter.countText(tail);
      total += counter.countText(pending + head) + middle;
      pending = tail;
    }
    if (index < parts.length - 1) pending += separator;
  });
  return total + counter.countText(pending);
}

function firstSplit(text: string, isSplitPoint: (text: string, index: number) => boolean): number {
  const end = Math.min(text.length, SEARCH_UNITS);
  for (let index = 1; index < end; index++) if (isSplitPoint(text, index)) return index;
  return -1;
}

/** The last split point within reach of the end; `first` (a split point) when none is. */
function lastSplit(
  text: string,
  isSplitPoint: (text: string, index: number) => boolean,
  first: number,
): number {
  const stop = Math.max(first, text.length - SEARCH_UNITS);
  for (let index = text.length - 1; index > stop; index--) if (isSplitPoint(text, index)) return index;
  return first;
}
