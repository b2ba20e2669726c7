/** A passage of the compiled context the offline model may quote. */
export interface Passage {
  /** Layer or reference label, e.g. `knowledge__context` or `guidance.md#步骤`. */
  label: string;
  text: string;
}

/**
 * Terms for the offline model's passage ranking: Latin words (lowercased, ≥ 2 letters) and
 * CJK character bigrams, so Chinese questions match Chinese passages without a segmenter.
 */
export function passageTerms(text: string): string[] {
  const terms: string[] = [];
  const normalized = text.normalize('NFKC').toLowerCase();
  for (const match of normalized.matchAll(/[\p{L}\p{N}]+/gu)) {
    const word = match[0];
    if (/\p{Script=Han}/u.test(word)) {
      const chars = [...word].filter((char) => /\p{Script=Han}/u.test(char));
      for (let index = 0; index + 1 < chars.length; index++) terms.push(`${chars[index]}${chars[index + 1]}`);
      if (chars.length === 1) terms.push(chars[0] as string);
    } else if (word.length >= 2 && !STOPWORDS.has(word)) {
      terms.push(word);
    }
  }
  return terms;
}

const STOPWORDS = new Set(
  'the a an and or of to in on for is are was were be it this that what why how do does did can could would should i you me my your with as at by from please about'.split(
    ' ',
  ),
);

/**
 * Ranks passages by how many distinct question terms they contain, weighted by rarity
 * across the passages (an idf), and returns the best `limit` with a score > 0.
 */
export function rankPassages(question: string, passages: readonly Passage[], limit = 3): Passage[] {
  const wanted = new Set(passageTerms(question));
  if (wanted.size === 0) return [];
  const termSets = passages.map((passage) => new Set(passageTerms(passage.text)));
  const documentFrequency = new Map<string, number>();
  for (const set of termSets)
    for (const term of set)
      if (wanted.has(term)) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
  const scored = passages.map((passage, index) => {
    let score = 0;
    for (const term of wanted) {
      if (termSets[index]?.has(term))
        score += Math.log(1 + passages.length / (documentFrequency.get(term) ?? 1));
    }
    return { passage, score };
  });
  return scored
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score)
    .slice(0, limit)
    .map((entry) => entry.passage);
}

/** Splits a layer's text into paragraph passages (blank-line separated, headings kept with their text). */
export function splitPassages(label: string, text: string): Passage[] {
  return text
    .split(/\n\s*\n/u)
    .map((paragraph) => paragraph.trim())
    .filter((paragraph) => paragraph.length > 0)
    .map((paragraph) => ({ label, text: paragraph }));
}
