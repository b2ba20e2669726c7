import { CtxloomError } from '../core/index.ts';
import { type Analyzer, createAnalyzer } from './analyzer.ts';
import type { RankedCandidate, RetrievalCandidate } from './candidate.ts';
import { dedupeCandidates } from './dedupe-candidates.ts';
import { createDefaultSignals, type RerankContext, type RerankSignal } from './rerank-signals.ts';

/** Options of {@link createReranker}. */
export interface RerankerOptions {
  /** Signals and weights; default {@link createDefaultSignals} (seed 001). */
  signals?: RerankSignal[];
  /** Analyzer for query overlap; default {@link createAnalyzer}(). */
  analyzer?: Analyzer;
}

/** Input of {@link Reranker.rerank}. */
export interface RerankInput {
  query: string;
  candidates: readonly RetrievalCandidate[];
  /** Candidates whose final score is below this are dropped. Default 0, range 0..1. */
  minScore?: number;
  /** Most candidates returned; default all. */
  limit?: number;
}

/** Seed 001's single reranker: dedup → weighted signals → filter and sort. */
export interface Reranker {
  readonly signals: readonly RerankSignal[];
  rerank(input: RerankInput): RankedCandidate[];
}

/**
 * Creates the reranker. `final = Σ score·weight / Σ weight`; ties keep recall order.
 * @example
 * const reranker = createReranker();
 * reranker.rerank({ query: 'auth token', candidates }); // best first, each with finalScore
 */
export function createReranker(options: RerankerOptions = {}): Reranker {
  const signals = options.signals ?? createDefaultSignals();
  const analyzer = options.analyzer ?? createAnalyzer();
  let totalWeight = 0;
  for (const [position, signal] of signals.entries()) {
    if (!(signal.weight >= 0) || !Number.isFinite(signal.weight)) {
      throw new CtxloomError({
        code: 'invalid-argument',
        message: `signal "${signal.name}" weight must be a finite number ≥ 0`,
        path: `signals[${position}].weight`,
      });
    }
    totalWeight += signal.weight;
  }
  const record = createSignalRecord(signals.map((signal) => signal.name));
  return {
    signals,
    rerank(input) {
      const candidates = dedupeCandidates(input.candidates);
      const context: RerankContext = {
        query: input.query,
        queryTerms: new Set(analyzer.analyze(input.query)),
        candidates,
        analyzer,
      };
      const minScore = input.minScore ?? 0;
      const scorers = signals.map((signal) => signal.prepare?.(context));
      const ranked: RankedCandidate[] = [];
      const values: number[] = [];
      for (const candidate of candidates) {
        let sum = 0;
        for (let index = 0; index < signals.length; index++) {
          const signal = signals[index] as RerankSignal;
          const scorer = scorers[index];
          const score = scorer === undefined ? signal.score(candidate, context) : scorer(candidate);
          values[index] = score;
          sum += score * signal.weight;
        }
        const finalScore = totalWeight > 0 ? sum / totalWeight : 0;
        if (finalScore < minScore) continue;
        ranked.push({ ...candidate, finalScore, signals: record(values) });
      }
      sortByFinalScore(ranked);
      return input.limit === undefined ? ranked : ranked.slice(0, Math.max(0, input.limit));
    },
  };
}

// Best first, ties in recall order. A candidate list is short: insertion sort (stable) beats
// the comparator calls of Array#sort, which is kept for long lists (it is stable too).
function sortByFinalScore(ranked: RankedCandidate[]): void {
  if (ranked.length > 32) {
    ranked.sort((left, right) => right.finalScore - left.finalScore);
    return;
  }
  for (let index = 1; index < ranked.length; index++) {
    const entry = ranked[index] as RankedCandidate;
    let at = index;
    while (at > 0 && (ranked[at - 1] as RankedCandidate).finalScore < entry.finalScore) {
      ranked[at] = ranked[at - 1] as RankedCandidate;
      at--;
    }
    ranked[at] = entry;
  }
}

const SEED_SIGNALS = ['vector-score', 'query-overlap', 'origin-diversity', 'content-length'];

// Builds the signal-name → score record of a candidate. The seed's four signals get an object
// literal (one hidden class, no keyed stores); others a copy of a template filled in by name.
function createSignalRecord(names: readonly string[]): (values: readonly number[]) => Record<string, number> {
  if (names.length === SEED_SIGNALS.length && names.every((name, index) => name === SEED_SIGNALS[index])) {
    return (values) => ({
      'vector-score': values[0] as number,
      'query-overlap': values[1] as number,
      'origin-diversity': values[2] as number,
      'content-length': values[3] as number,
    });
  }
  const template: Record<string, number> = {};
  for (const name of names) template[name] = 0;
  return (values) => {
    const scores = { ...template };
    for (let index = 0; index < names.length; index++)
      scores[names[index] as string] = values[index] as number;
    return scores;
  };
}
