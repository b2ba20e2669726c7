import { sentenceSegments } from './split-sentences.ts';
import { pairSafeEnd } from './surrogates.ts';
import type { TokenCounter } from './tokens.ts';

/** The marker appended to trimmed text, so the model knows text is missing. */
export const TRIM_MARKER = '\n[… trimmed]';

/** Result of {@link trimToTokens}. */
export interface TrimResult {
  text: string;
  tokens: number;
  /** `heading`, `paragraph`, `sentence` or `character`: where the cut was made. */
  boundary: 'heading' | 'paragraph' | 'sentence' | 'line' | 'character';
}

/**
 * Cuts `text` to at most `maxTokens` (marker included), at the latest heading, paragraph,
 * line or sentence boundary that fits; only when no boundary fits does it cut between
 * characters (never inside a surrogate pair; `allowCharacterCut: false` forbids it). Returns undefined when not even the marker
 * fits. Counts with `counter`, so the result is exact for that counter.
 */
export function trimToTokens(
  text: string,
  maxTokens: number,
  counter: TokenCounter,
  options: { allowCharacterCut?: boolean } = {},
): TrimResult | undefined {
  const whole = counter.countText(text);
  if (whole <= maxTokens) return { text, tokens: whole, boundary: 'paragraph' };
  if (maxTokens <= counter.countText(TRIM_MARKER)) return undefined;

  const fits = (end: number) => counter.countText(text.slice(0, end) + TRIM_MARKER) <= maxTokens;
  const cuts = boundaries(text);
  let best: { end: number; boundary: TrimResult['boundary'] } | undefined;
  let low = 0;
  let high = cuts.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const cut = cuts[middle];
    if (cut !== undefined && fits(cut.end)) {
      best = cut;
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  if (best === undefined) {
    if (options.allowCharacterCut === false) return undefined;
    let lo = 0;
    let hi = text.length;
    while (lo < hi) {
      const middle = (lo + hi + 1) >> 1;
      if (fits(pairSafeEnd(text, middle))) lo = middle;
      else hi = middle - 1;
    }
    const end = pairSafeEnd(text, lo);
    if (end === 0) return undefined;
    best = { end, boundary: 'character' };
  }
  const trimmed = text.slice(0, best.end).trimEnd() + TRIM_MARKER;
  return { text: trimmed, tokens: counter.countText(trimmed), boundary: best.boundary };
}

function boundaries(text: string): { end: number; boundary: TrimResult['boundary'] }[] {
  const found = new Map<number, TrimResult['boundary']>();
  const rank = { heading: 4, paragraph: 3, line: 1, sentence: 2, character: 0 } as const;
  const add = (end: number, boundary: TrimResult['boundary']) => {
    if (end <= 0 || end >= text.length) return;
    const current = found.get(end);
    if (current === undefined || rank[boundary] > rank[current]) found.set(end, boundary);
  };
  for (const match of text.matchAll(/\n(?=#{1,6}\s)/gu)) add(match.index, 'heading');
  for (const match of text.matchAll(/\n\s*\n/gu)) add(match.index, 'paragraph');
  for (const match of text.matchAll(/\n/gu)) add(match.index, 'line');
  let end = 0;
  for (const piece of sentenceSegments(text)) {
    end += piece.length;
    add(end - (piece.length - piece.trimEnd().length), 'sentence');
  }
  return [...found.entries()].sort((a, b) => a[0] - b[0]).map(([end, boundary]) => ({ end, boundary }));
}
