import type { Analyzer } from './analyzer.ts';
import type { RetrievalCandidate } from './candidate.ts';

/** What every signal sees: the (rewritten) query, its terms, and the whole candidate list. */
export interface RerankContext {
  query: string;
  /** Unique analyzed query terms. */
  queryTerms: ReadonlySet<string>;
  candidates: readonly RetrievalCandidate[];
  analyzer: Analyzer;
}

/**
 * One reranking signal: a score in 0..1 for a candidate, and its weight (≥ 0) in the weighted
 * mean. Signals are pluggable; the four below are seed 001's.
 */
export interface RerankSignal {
  readonly name: string;
  readonly weight: number;
  score(candidate: RetrievalCandidate, context: RerankContext): number;
}

/**
 * Seed `VectorScoreSignal` (default weight 0.40): the recall score as is. Without an embedder
 * that is the normalised lexical score (BM25 / best BM25 of the query), documented in
 * docs/retrieval.md.
 */
export function createVectorScoreSignal(weight = 0.4): RerankSignal {
  return { name: 'vector-score', weight, score: (candidate) => clamp(candidate.vectorScore) };
}

/**
 * Seed `QueryOverlapSignal` (default weight 0.35): the fraction of distinct query terms
 * (after analysis: stopwords out, stemmed, CJK n-grams) that occur in the candidate. 0 when
 * the query has no terms.
 */
export function createQueryOverlapSignal(weight = 0.35): RerankSignal {
  // Analysed candidate texts, reused across queries (memory passages recur); bounded, FIFO.
  // Keyed by analyzer, then by the content string itself (V8 keeps a string's hash, so the
  // same passage object is found without rehashing).
  const caches = new WeakMap<Analyzer, Map<string, ReadonlySet<string>>>();
  const termsOf = (analyzer: Analyzer, content: string): ReadonlySet<string> => {
    let cache = caches.get(analyzer);
    if (cache === undefined) {
      cache = new Map();
      caches.set(analyzer, cache);
    }
    let terms = cache.get(content);
    if (terms === undefined) {
      terms = new Set(analyzer.analyze(content));
      if (cache.size >= 4096) cache.delete(cache.keys().next().value as string);
      cache.set(content, terms);
    }
    return terms;
  };
  return {
    name: 'query-overlap',
    weight,
    score(candidate, context) {
      if (context.queryTerms.size === 0) return 0;
      const terms = termsOf(context.analyzer, candidate.content);
      let hits = 0;
      for (const term of context.queryTerms) if (terms.has(term)) hits++;
      return hits / context.queryTerms.size;
    },
  };
}

/**
 * Seed `OriginDiversitySignal` (default weight 0.15): penalises an origin that dominates the
 * candidate list — share > 70% → 0.3, > 50% → 0.6, otherwise 1.0.
 */
export function createOriginDiversitySignal(weight = 0.15): RerankSignal {
  // Origin counts per candidate list, computed once per rerank call.
  const counts = new WeakMap<readonly RetrievalCandidate[], Map<string, number>>();
  return {
    name: 'origin-diversity',
    weight,
    score(candidate, context) {
      let perOrigin = counts.get(context.candidates);
      if (perOrigin === undefined) {
        perOrigin = new Map();
        for (const other of context.candidates)
          perOrigin.set(other.origin, (perOrigin.get(other.origin) ?? 0) + 1);
        counts.set(context.candidates, perOrigin);
      }
      const share = (perOrigin.get(candidate.origin) ?? 0) / Math.max(1, context.candidates.length);
      return share > 0.7 ? 0.3 : share > 0.5 ? 0.6 : 1;
    },
  };
}

/**
 * Seed `ContentLengthSignal` (default weight 0.10): 1.0 for 200–800 characters; shorter
 * passages score `length / 200`, longer ones `800 / length` (both in 0..1).
 */
export function createContentLengthSignal(weight = 0.1): RerankSignal {
  return {
    name: 'content-length',
    weight,
    score(candidate) {
      const length = candidate.content.length;
      if (length < 200) return length / 200;
      if (length > 800) return 800 / length;
      return 1;
    },
  };
}

/** The seed's four signals with their default weights (.40 / .35 / .15 / .10). */
export function createDefaultSignals(): RerankSignal[] {
  return [
    createVectorScoreSignal(),
    createQueryOverlapSignal(),
    createOriginDiversitySignal(),
    createContentLengthSignal(),
  ];
}

function clamp(value: number): number {
  return Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0;
}
