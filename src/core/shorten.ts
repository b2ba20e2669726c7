import { pairSafeEnd } from './surrogates.ts';

/** Longest echo of a caller's value (an id, a path) in an error, in characters. */
export const MAX_ECHO_CHARS = 200;

/**
 * `value` as an error may echo it: itself when at most `maxChars` long, else its first
 * characters and `…` (never half a surrogate pair) — an error about a megabyte id does not
 * send the megabyte back.
 */
export function shorten(value: string, maxChars = MAX_ECHO_CHARS): string {
  if (value.length <= maxChars) return value;
  return `${value.slice(0, pairSafeEnd(value, Math.max(1, maxChars - 1)))}…`;
}

/**
 * Ids (or names) for an error message: each quoted and {@link shorten}ed, the first `maxShown`
 * of them, then how many more — `"a", "b" and 3 more`.
 */
export function quoteShortened(values: readonly string[], maxShown = 5): string {
  const shown = values.slice(0, maxShown).map((value) => JSON.stringify(shorten(value)));
  const more = values.length - shown.length;
  return more > 0 ? `${shown.join(', ')} and ${more} more` : shown.join(', ');
}
