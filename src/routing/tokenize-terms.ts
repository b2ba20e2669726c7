const WORDS = new Intl.Segmenter('zh', { granularity: 'word' });
const CJK = /\p{Script=Han}/u;

/**
 * Lowercased terms of a text for lexical matching: word segments from `Intl.Segmenter`
 * (dictionary-based for Chinese), plus character bigrams of Han runs so partial Chinese
 * words still match, plus the parts of dotted names (`dw.orders` → `dw.orders`, `orders`).
 */
export function tokenizeTerms(text: string): string[] {
  const terms: string[] = [];
  for (const segment of WORDS.segment(text.toLowerCase())) {
    if (!segment.isWordLike) continue;
    const word = segment.segment;
    if (CJK.test(word)) {
      terms.push(word);
      for (let index = 0; index + 1 < word.length; index++) terms.push(word.slice(index, index + 2));
    } else if (word.length > 1) {
      terms.push(word);
    }
  }
  for (const dotted of text.toLowerCase().match(/[a-z_][\w]*(?:\.[a-z_][\w]*)+/gu) ?? []) terms.push(dotted);
  return terms;
}
