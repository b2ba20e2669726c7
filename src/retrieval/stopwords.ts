import { createRequire } from 'node:module';

interface StopwordsIso {
  en: string[];
  zh: string[];
}

// stopwords-iso ships one JSON file for ~50 languages; a require keeps its huge literal type out
// of the type checker and loads it once.
const lists = createRequire(import.meta.url)('stopwords-iso') as StopwordsIso;

/**
 * English stopwords from the maintained `stopwords-iso` collection (1,298 entries, lowercase,
 * contractions included). Used by the query rewriter and, by default, the analyzer.
 */
export const ENGLISH_STOPWORDS: ReadonlySet<string> = new Set(lists.en);

/**
 * Simplified Chinese stopwords from `stopwords-iso` (794 entries: function words such as
 * 的/了/是 and punctuation).
 */
export const CHINESE_STOPWORDS: ReadonlySet<string> = new Set(lists.zh);

/** English and Chinese stopwords together; the analyzer's and rewriter's default. */
export const DEFAULT_STOPWORDS: ReadonlySet<string> = new Set([...lists.en, ...lists.zh]);
