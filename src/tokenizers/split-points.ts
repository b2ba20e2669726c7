/**
 * True when an o200k or cl100k count splits at `index`: the character before it is a letter
 * and the one at it is not a letter, combining mark or apostrophe. Both encodings'
 * pre-tokenisers end a letter run's piece there (only a contraction such as `'s` or a mark
 * could extend it), and a piece starting at `index` depends only on the text after it, so
 * `count(text) = count(text[..index]) + count(text[index..])` — exactly, for any text with
 * these two characters at `index − 1` and `index`.
 *
 * Deliberately narrow: only letters and non-letters whose class every Unicode version agrees
 * on (Latin, Greek, Cyrillic, kana, hangul and the original CJK ideographs before; ASCII
 * non-letters and common CJK and general punctuation at), since the provider's tokenizer
 * (tiktoken) classifies characters with its own Unicode tables, not this engine's.
 */
export function isSplitPoint(text: string, index: number): boolean {
  return isStableLetter(text.charCodeAt(index - 1)) && isStableNonLetter(text.charCodeAt(index));
}

function isStableLetter(code: number): boolean {
  if (code < 0x80) return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
  return (
    (code >= 0x4e00 && code <= 0x9fa5) || // CJK unified ideographs of Unicode 1.1
    (code >= 0xc0 && code <= 0x24f && code !== 0xd7 && code !== 0xf7) || // Latin-1 and Latin Extended-A/B letters
    (code >= 0x391 && code <= 0x3a9 && code !== 0x3a2) || // Greek capitals
    (code >= 0x3b1 && code <= 0x3c9) || // Greek small letters
    (code >= 0x410 && code <= 0x44f) || // Cyrillic basic
    (code >= 0x3041 && code <= 0x3096) || // hiragana
    (code >= 0x30a1 && code <= 0x30fa) || // katakana
    (code >= 0xac00 && code <= 0xd7a3) // hangul syllables
  );
}

function isStableNonLetter(code: number): boolean {
  if (code < 0x80) {
    // Every ASCII character but letters, digits stay allowed, apostrophe excluded (contractions).
    return !((code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code === 0x27);
  }
  return (
    (code >= 0x3000 && code <= 0x3004) || // ideographic space, 、 。 〃 〄
    (code >= 0x3008 && code <= 0x3011) || // 〈 〉 《 》 「 」 『 』 【 】
    (code >= 0x3014 && code <= 0x301f) || // 〔 〕 … 〟
    (code >= 0xff01 && code <= 0xff0f) || // ！ ＂ … ／
    (code >= 0xff1a && code <= 0xff20) || // ： ； ＜ ＝ ＞ ？ ＠
    (code >= 0x2010 && code <= 0x2027) // dashes, quotes, bullets, ellipsis
  );
}
