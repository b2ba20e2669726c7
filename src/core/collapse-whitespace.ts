/** Whitespace that `replace(/\s+/g, ' ').trim()` would change: anything but single inner spaces. */
const COLLAPSIBLE = /[^\S ]| {2}|^ | $/;

/**
 * `text` with every whitespace run (Unicode `\s`) collapsed to one space and both ends
 * trimmed — the same string as `text.replace(/\s+/g, ' ').trim()`, returned as is when there
 * is nothing to collapse (most block contents), which skips the replace's copy.
 */
export function collapseWhitespace(text: string): string {
  return COLLAPSIBLE.test(text) ? text.replace(/\s+/gu, ' ').trim() : text;
}
