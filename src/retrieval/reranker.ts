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
      const ranked: RankedCandidate[] = [];
      const positions = new Map<RankedCandidate, number>();
      for (const [position, candidate] of candidates.entries()) {
        const scores: Record<string, number> = {};
        let sum = 0;
        for (const signal of signals) {
          const score = signal.score(candidate, context);
          scores[signal.name] = score;
          sum += score * signal.weight;
        }
        const finalScore = totalWeight > 0 ? sum / totalWeight : 0;
        if (finalScore < minScore) continue;
        const entry: RankedCandidate = { ...candidate, finalScore, signals: scores };
        positions.set(entry, position);
        ranked.push(entry);
      }
      ranked.sort(
        (left, right) =>
          right.finalScore - left.finalScore || (positions.get(left) ?? 0) - (positions.get(right) ?? 0),
      );
      return input.limit === undefined ? ranked : ranked.slice(0, Math.max(0, input.limit));
    },
  };
}
