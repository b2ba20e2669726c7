/** Whether a UTF-16 code unit opens a surrogate pair (the first half of a character outside the BMP). */
export function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** `end`, or one less when the code unit before it opens a surrogate pair: a cut there splits no character. */
export function pairSafeEnd(text: string, end: number): number {
  return isHighSurrogate(text.charCodeAt(end - 1)) ? end - 1 : end;
}
