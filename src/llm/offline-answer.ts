import { createBm25Index } from '../retrieval/bm25-index.ts';

/** A passage of the compiled context the offline model may quote. */
export interface Passage {
  /** Layer or reference label, e.g. `knowledge__context` or `guidance.md#步骤`. */
  label: string;
  text: string;
}

/**
 * The `limit` passages most relevant to `question`, by the same BM25 index and analyzer
 * retrieval uses (NFKC, zh/en stopwords, CJK n-grams), so Chinese questions match Chinese
 * passages without a segmenter. Passages that share no term with the question are left out.
 */
export function rankPassages(question: string, passages: readonly Passage[], limit = 3): Passage[] {
  const index = createBm25Index();
  passages.forEach((passage, position) => {
    index.add(String(position), passage.text);
  });
  return index
    .search(question, { limit })
    .map((hit) => passages[Number(hit.id)])
    .filter((passage): passage is Passage => passage !== undefined);
}

/** Splits a layer's text into paragraph passages (blank-line separated, headings kept with their text). */
export function splitPassages(label: string, text: string): Passage[] {
  return text
    .split(/\n\s*\n/u)
    .map((paragraph) => paragraph.trim())
    .filter((paragraph) => paragraph.length > 0)
    .map((paragraph) => ({ label, text: paragraph }));
}
