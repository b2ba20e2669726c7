import type { TokenCounter } from '../core/index.ts';
import { sentenceSegments } from '../core/split-sentences.ts';

/** Splits text into sentences, keeping each terminator and following whitespace attached. */
export const splitSentences: (text: string) => string[] = sentenceSegments;

/**
 * The longest prefix of whole sentences of `text` that fits in `maxTokens` (counted with
 * `counter`), trailing whitespace trimmed; `''` when not even the first sentence fits.
 * Binary search over sentence counts, so a long passage costs O(log n) counts.
 */
export function trimToSentences(text: string, maxTokens: number, counter: TokenCounter): string {
  if (maxTokens <= 0) return '';
  if (counter.countText(text) <= maxTokens) return text;
  const sentences = splitSentences(text);
  let low = 0;
  let high = sentences.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (counter.countText(sentences.slice(0, middle).join('').trimEnd()) <= maxTokens) low = middle;
    else high = middle - 1;
  }
  return sentences.slice(0, low).join('').trimEnd();
}
