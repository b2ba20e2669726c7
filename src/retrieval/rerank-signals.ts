import type { Analyzer } from './analyzer.ts';
import type { RetrievalCandidate } from './candidate.ts';
import { createTermIdCache, type TermIdCache } from './term-id-cache.ts';

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
  /**
   * Optional: does the per-query work once and returns a scorer for that query's candidates,
   * giving the same scores as `score`. The reranker calls it once per rerank when present.
   */
  prepare?(context: RerankContext): (candidate: RetrievalCandidate) => number;
}

/**
 * Seed `VectorScoreSignal` (default weight 0.40): the recall score as is. Without an embedder
 * that is the normalised lexical score (BM25 / best BM25 of the query), documented in
 * docs/retrieval.md.
 */
export function createVectorScoreSignal(weight = 0.4): RerankSignal {
  return builtin(SIGNAL_KIND.vectorScore, {
    name: 'vector-score',
    weight,
    score: (candidate) => clampScore(candidate.vectorScore),
  });
}

/**
 * Seed `QueryOverlapSignal` (default weight 0.35): the fraction of distinct query terms
 * (after analysis: stopwords out, stemmed, CJK n-grams) that occur in the candidate. 0 when
 * the query has no terms.
 */
export function createQueryOverlapSignal(weight = 0.35): RerankSignal {
  // Analysed candidate texts as term ids, reused across queries (memory passages recur);
  // one cache per analyzer.
  const caches = new WeakMap<Analyzer, TermIdCache>();
  const prepare = (context: RerankContext) => {
    const size = context.queryTerms.size;
    if (size === 0) return () => 0;
    let cache = caches.get(context.analyzer);
    if (cache === undefined) {
      cache = createTermIdCache(context.analyzer);
      caches.set(context.analyzer, cache);
    }
    const terms = cache;
    // The scorer is used within this rerank only: the next prepare re-marks the query.
    terms.markQuery(context.queryTerms);
    return (candidate: RetrievalCandidate) => terms.countQueryTerms(candidate.content) / size;
  };
  return builtin(SIGNAL_KIND.other, {
    name: 'query-overlap',
    weight,
    prepare,
    score: (candidate, context) => prepare(context)(candidate),
  });
}

/**
 * Seed `OriginDiversitySignal` (default weight 0.15): penalises an origin that dominates the
 * candidate list — share > 70% → 0.3, > 50% → 0.6, otherwise 1.0.
 */
export function createOriginDiversitySignal(weight = 0.15): RerankSignal {
  const scoreOf = (count: number, total: number): number => {
    const share = count / total;
    return share > 0.7 ? 0.3 : share > 0.5 ? 0.6 : 1;
  };
  const prepare = (context: RerankContext) => {
    const total = Math.max(1, context.candidates.length);
    // Usually one origin per recall source: parallel arrays searched by identity first.
    const origins: string[] = [];
    const counts: number[] = [];
    for (const other of context.candidates) {
      const at = indexOfOrigin(origins, other.origin);
      if (at >= 0) counts[at] = (counts[at] as number) + 1;
      else if (origins.length < 16) {
        origins.push(other.origin);
        counts.push(1);
      } else return prepareWithMap(context.candidates, total);
    }
    const scores = counts.map((count) => scoreOf(count, total));
    return (candidate: RetrievalCandidate) => {
      const at = indexOfOrigin(origins, candidate.origin);
      // An origin outside the list has share 0.
      return at < 0 ? 1 : (scores[at] as number);
    };
  };
  const prepareWithMap = (candidates: readonly RetrievalCandidate[], total: number) => {
    const perOrigin = new Map<string, number>();
    for (const other of candidates) perOrigin.set(other.origin, (perOrigin.get(other.origin) ?? 0) + 1);
    return (candidate: RetrievalCandidate) => scoreOf(perOrigin.get(candidate.origin) ?? 0, total);
  };
  return builtin(SIGNAL_KIND.other, {
    name: 'origin-diversity',
    weight,
    prepare,
    score: (candidate, context) => prepare(context)(candidate),
  });
}

/**
 * Seed `ContentLengthSignal` (default weight 0.10): 1.0 for 200–800 characters; shorter
 * passages score `length / 200`, longer ones `800 / length` (both in 0..1).
 */
export function createContentLengthSignal(weight = 0.1): RerankSignal {
  return builtin(SIGNAL_KIND.contentLength, {
    name: 'content-length',
    weight,
    score: (candidate) => contentLengthScore(candidate.content.length),
  });
}

/** The content-length signal's score of a passage of `length` characters. */
export function contentLengthScore(length: number): number {
  if (length < 200) return length / 200;
  if (length > 800) return 800 / length;
  return 1;
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

/**
 * How the reranker computes a signal of this package: `vectorScore` and `contentLength` it
 * computes in its own loop (the same expressions as their `score`), `other` through `prepare`
 * or `score`. Not exported from `ctxloom/retrieval`.
 */
export const SIGNAL_KIND = { other: 0, vectorScore: 1, contentLength: 2 } as const;

const kinds = new WeakMap<RerankSignal, number>();

/** The {@link SIGNAL_KIND} of `signal` (`other` for a signal not made here). */
export function signalKind(signal: RerankSignal): number {
  return kinds.get(signal) ?? SIGNAL_KIND.other;
}

// The signals made here are frozen: the reranker may compute them inline, so their `score`
// and `weight` must be the ones they were made with.
function builtin(kind: number, signal: RerankSignal): RerankSignal {
  Object.freeze(signal);
  kinds.set(signal, kind);
  return signal;
}

/** The vector-score signal's score: `value` clamped to 0..1 (NaN and ±∞ give 0). */
export function clampScore(value: number): number {
  return Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0;
}

// Linear search: the list holds one origin per recall source.
function indexOfOrigin(origins: readonly string[], origin: string): number {
  for (let index = 0; index < origins.length; index++) if (origins[index] === origin) return index;
  return -1;
}
