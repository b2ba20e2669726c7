/** Default cap of one tool output, in characters. */
export const DEFAULT_MAX_OUTPUT_CHARS = 20_000;

/**
 * Caps a tool output at `maxChars` (cut at the last line break before the cap when there is
 * one) and appends an explicit marker saying how much was left out and how to get the rest.
 */
export function capOutput(
  text: string,
  maxChars: number,
  hint = 'narrow the request to see the rest',
): string {
  if (text.length <= maxChars) return text;
  let cut = text.lastIndexOf('\n', maxChars);
  if (cut < maxChars / 2) cut = maxChars;
  return `${text.slice(0, cut)}\n[truncated: showed ${cut} of ${text.length} characters; ${hint}]`;
}
