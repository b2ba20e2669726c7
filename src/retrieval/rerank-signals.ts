import type { Analyzer } from './analyzer.ts';
import type { RetrievalCandidate } from './candidate.ts';
import { recalledTermsOf } from './passage-terms.ts';
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
 * mean. Signals are pluggable; the four below are seed 001's. The reranker scores one signal at
 * a time over every candidate, in signal order, and reads `weight` once, when it is made; a
 * score is stored as a number (`Float64Array`), so return numbers.
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
  return builtin(
    { name: 'vector-score', weight, score: (candidate) => clampScore(candidate.vectorScore) },
    (candidates, _terms, _analyzer, scores, column, stride) => {
      for (let at = 0; at < candidates.length; at++) {
        const value = (candidates[at] as RetrievalCandidate).vectorScore;
        // clampScore in comparisons: NaN, ±∞ and ≤ 0 (−0 too) give 0, finite ≥ 1 gives 1.
        scores[at * stride + column] = value > 0 ? (value < 1 ? value : value === Infinity ? 0 : 1) : 0;
      }
    },
  );
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
  // The analyzer's cache with the query of `context` marked (until the next query is).
  const marked = (analyzer: Analyzer, terms: ReadonlySet<string> | readonly string[]): TermIdCache => {
    let cache = caches.get(analyzer);
    if (cache === undefined) {
      cache = createTermIdCache(analyzer);
      caches.set(analyzer, cache);
    }
    cache.markQuery(terms);
    return cache;
  };
  const prepare = (context: RerankContext) => {
    const size = context.queryTerms.size;
    if (size === 0) return () => 0;
    const terms = marked(context.analyzer, context.queryTerms);
    // The scorer is used within this rerank only: the next prepare re-marks the query.
    return (candidate: RetrievalCandidate) => terms.countQueryTerms(candidate.content) / size;
  };
  return builtin(
    { name: 'query-overlap', weight, prepare, score: (candidate, context) => prepare(context)(candidate) },
    (candidates, terms, analyzer, scores, column, stride) => {
      const size = terms.length;
      if (size === 0) {
        for (let at = 0; at < candidates.length; at++) scores[at * stride + column] = 0;
        return;
      }
      // Passages whose term ids their source holds (the same terms, by the same analyzer) are
      // counted from those; any other list is looked up by text in the term cache.
      const held = recalledTermsOf(candidates, analyzer);
      if (held !== undefined) {
        const space = held.space as NonNullable<typeof held.space>;
        space.shareOfQueryTerms(
          held.pool,
          held.offsets,
          candidates.length,
          terms,
          size,
          scores,
          column,
          stride,
        );
      } else marked(analyzer, terms).shareOfQueryTerms(candidates, size, scores, column, stride);
    },
  );
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
  const prepare = (context: RerankContext) => prepareFor(context.candidates);
  const prepareFor = (candidates: readonly RetrievalCandidate[]) => {
    const total = Math.max(1, candidates.length);
    // Usually one origin per recall source: parallel arrays searched by identity first.
    const origins: string[] = [];
    const counts: number[] = [];
    for (const other of candidates) {
      const at = indexOfOrigin(origins, other.origin);
      if (at >= 0) counts[at] = (counts[at] as number) + 1;
      else if (origins.length < 16) {
        origins.push(other.origin);
        counts.push(1);
      } else return prepareWithMap(candidates, total);
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
  return builtin(
    { name: 'origin-diversity', weight, prepare, score: (candidate, context) => prepare(context)(candidate) },
    (candidates, _terms, _analyzer, scores, column, stride) => {
      // Nothing to score (no read past the end: optimised code would be thrown away for it).
      if (candidates.length === 0) return;
      const first = (candidates[0] as RetrievalCandidate).origin;
      let single = true;
      for (let at = 1; at < candidates.length && single; at++)
        single = (candidates[at] as RetrievalCandidate).origin === first;
      // One origin (one recall source): every candidate has all the candidates' share.
      const score = single ? scoreOf(candidates.length, Math.max(1, candidates.length)) : 0;
      const scorer = single ? undefined : prepareFor(candidates);
      for (let at = 0; at < candidates.length; at++) {
        scores[at * stride + column] =
          scorer === undefined ? score : scorer(candidates[at] as RetrievalCandidate);
      }
    },
  );
}

/**
 * Seed `ContentLengthSignal` (default weight 0.10): 1.0 for 200–800 characters; shorter
 * passages score `length / 200`, longer ones `800 / length` (both in 0..1).
 */
export function createContentLengthSignal(weight = 0.1): RerankSignal {
  return builtin(
    { name: 'content-length', weight, score: (candidate) => contentLengthScore(candidate.content.length) },
    (candidates, _terms, _analyzer, scores, column, stride) => {
      for (let at = 0; at < candidates.length; at++) {
        const length = (candidates[at] as RetrievalCandidate).content.length;
        // contentLengthScore, written out.
        scores[at * stride + column] = length < 200 ? length / 200 : length > 800 ? 800 / length : 1;
      }
    },
  );
}

// The content-length signal's score of a passage of `length` characters.
function contentLengthScore(length: number): number {
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
 * Writes a signal's score of every candidate into `scores[candidate × stride + column]` — the
 * same scores as its `score` with a context of these candidates, whose `queryTerms` are
 * `terms` (the query's distinct analysed terms, in order) — in one call per rerank. Not
 * exported from `ctxloom/retrieval`.
 */
export type SignalColumn = (
  candidates: readonly RetrievalCandidate[],
  terms: readonly string[],
  analyzer: Analyzer,
  scores: Float64Array,
  column: number,
  stride: number,
) => void;

const columns = new WeakMap<RerankSignal, SignalColumn>();

/** The {@link SignalColumn} of a signal made here (undefined for any other). */
export function signalColumn(signal: RerankSignal): SignalColumn | undefined {
  return columns.get(signal);
}

// The signals made here are frozen: the reranker computes them through their column, so their
// `score` and `weight` must stay the ones they were made with.
function builtin(signal: RerankSignal, column: SignalColumn): RerankSignal {
  Object.freeze(signal);
  columns.set(signal, column);
  return signal;
}

// The vector-score signal's score: `value` clamped to 0..1 (NaN and ±∞ give 0).
function clampScore(value: number): number {
  return Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0;
}

// Linear search: the list holds one origin per recall source.
function indexOfOrigin(origins: readonly string[], origin: string): number {
  for (let index = 0; index < origins.length; index++) if (origins[index] === origin) return index;
  return -1;
}
