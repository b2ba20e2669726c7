const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Makes text safe and comparable for indexing: lone UTF-16 surrogates become U+FFFD (so a
 * malformed string never reaches `normalize`), then Unicode NFKC folds compatibility forms
 * (full-width Latin `ＡＢＣ` → `ABC`, ligatures, half-width kana), then lowercase.
 * Pure; never throws for any string.
 */
export function normalizeText(text: string): string {
  return text.replace(LONE_SURROGATE, '\uFFFD').normalize('NFKC').toLowerCase();
}
