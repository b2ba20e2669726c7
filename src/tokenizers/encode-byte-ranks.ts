/**
 * Writes the rank of each UTF-8 byte of `text` into `target` (which must hold
 * `text.length * 3` entries) and returns the byte count. Lone surrogates are encoded as
 * U+FFFD, exactly as `TextEncoder` and `gpt-tokenizer` do.
 */
export function encodeByteRanks(text: string, byteRanks: Int32Array, target: Int32Array): number {
  let length = 0;
  const put = (byte: number) => {
    target[length++] = byteRanks[byte] as number;
  };
  for (let index = 0; index < text.length; index++) {
    let code = text.charCodeAt(index);
    if (code < 0x80) {
      put(code);
      continue;
    }
    if (code < 0x800) {
      put(0xc0 | (code >> 6));
      put(0x80 | (code & 63));
      continue;
    }
    if (code >= 0xd800 && code <= 0xdbff && index + 1 < text.length) {
      const low = text.charCodeAt(index + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        const point = ((code - 0xd800) << 10) + (low - 0xdc00) + 0x10000;
        index++;
        put(0xf0 | (point >> 18));
        put(0x80 | ((point >> 12) & 63));
        put(0x80 | ((point >> 6) & 63));
        put(0x80 | (point & 63));
        continue;
      }
    }
    if (code >= 0xd800 && code <= 0xdfff) code = 0xfffd;
    put(0xe0 | (code >> 12));
    put(0x80 | ((code >> 6) & 63));
    put(0x80 | (code & 63));
  }
  return length;
}
