import { CtxloomError } from '../core/index.ts';
import { type Analyzer, createAnalyzer, distinctTermsOf } from './analyzer.ts';
import type { RankedCandidate, RetrievalCandidate } from './candidate.ts';
import { dedupedView } from './dedupe-candidates.ts';
import {
  createDefaultSignals,
  type RerankContext,
  type RerankSignal,
  type SignalColumn,
  signalColumn,
} from './rerank-signals.ts';

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
  const count = signals.length;
  const weights = Float64Array.from(signals, (signal) => signal.weight);
  const columns = signals.map(signalColumn);
  const builtinOnly = columns.every((column) => column !== undefined);
  const record = createSignalRecord(signals.map((signal) => signal.name));
  // Scores of the current rerank, signal by signal per candidate, and the final scores and
  // order of the candidates — grown, never shrunk, and reused unless a signal reranks with
  // this reranker while it runs.
  let scratch = createScratch(0, count);
  let busy = false;
  // `inPlace`: the candidates are the retriever's fresh recall (fresh-recall.ts), completed
  // into the ranked ones instead of copied.
  // `distinct`: the candidates repeat no fingerprint (their source says so), so there is
  // nothing to deduplicate.
  const run = (input: RerankInput, inPlace: boolean, distinct: boolean): RankedCandidate[] => {
    const candidates = distinct ? input.candidates : dedupedView(input.candidates);
    const size = candidates.length;
    const terms = distinctTermsOf(analyzer, input.query);
    // What a custom signal sees (the seed signals read the candidates and terms directly).
    const context: RerankContext | undefined = builtinOnly
      ? undefined
      : { query: input.query, queryTerms: new Set(terms), candidates, analyzer };
    const own = !busy;
    if (own && scratch.order.length < size) scratch = createScratch(size, count);
    const { scores, finals, order } = own ? scratch : createScratch(size, count);
    busy = true;
    try {
      // One signal at a time over every candidate (its scorer prepared once per rerank).
      for (let index = 0; index < count; index++) {
        const column = columns[index] as SignalColumn | undefined;
        if (column === undefined)
          scoreColumn(signals[index] as RerankSignal, context as RerankContext, scores, index, count);
        else column(candidates, terms, analyzer, scores, index, count);
      }
      const kept = weigh(scores, size, weights, totalWeight, input.minScore ?? 0, finals, order);
      // As `slice(0, limit)` reads a limit: truncated, NaN and below 0 as 0.
      const wanted = input.limit === undefined ? kept : Math.trunc(input.limit);
      const length = selectBest(order, kept, finals, wanted > 0 ? Math.min(kept, wanted) : 0);
      return inPlace
        ? completeRanked(candidates, order, length, finals, scores, count, record)
        : copyRanked(candidates, order, length, finals, scores, count, record);
    } finally {
      if (own) busy = false;
    }
  };
  const reranker: Reranker = { signals, rerank: (input) => run(input, false, false) };
  inPlaceReranks.set(reranker, {
    rerank: (input, distinct) => run(input, true, distinct),
    seedSignalsOnly: builtinOnly,
  });
  return reranker;
}

const inPlaceReranks = new WeakMap<Reranker, InPlaceRerank>();

/** A rerank that completes its candidates into the ranked ones; see {@link inPlaceRerank}. */
export interface InPlaceRerank {
  /**
   * `distinct`: the source knows the candidates' fingerprints to be pairwise different (the
   * deduplication is skipped; a list that repeats one must not say so).
   */
  rerank(input: RerankInput, distinct: boolean): RankedCandidate[];
  /**
   * Whether only the seed signals score (none reads a candidate's other properties), so the
   * candidates may already hold `finalScore` and `signals` placeholders, overwritten for each
   * returned candidate.
   */
  seedSignalsOnly: boolean;
}

/**
 * For the retriever: `reranker`'s rerank that completes its candidates into the ranked ones
 * (sets `finalScore` and `signals` on each returned candidate, in the order a copy has them)
 * instead of copying them — for candidates no one else holds, of a reranker made by
 * {@link createReranker}; undefined for any other reranker. Internal.
 */
export function inPlaceRerank(reranker: Reranker): InPlaceRerank | undefined {
  return inPlaceReranks.get(reranker);
}

// Each candidate's final score — the weighted sum in signal order, as it always was — into
// `finals`, and the positions scoring at least `minScore` into `order`; returns how many.
function weigh(
  scores: Float64Array,
  size: number,
  weights: Float64Array,
  totalWeight: number,
  minScore: number,
  finals: Float64Array,
  order: Int32Array,
): number {
  const count = weights.length;
  let kept = 0;
  for (let at = 0; at < size; at++) {
    let sum = 0;
    for (let index = 0; index < count; index++) {
      sum += (scores[at * count + index] as number) * (weights[index] as number);
    }
    const finalScore = totalWeight > 0 ? sum / totalWeight : 0;
    if (finalScore < minScore) continue;
    finals[at] = finalScore;
    order[kept++] = at;
  }
  return kept;
}

// The first `length` positions of `order` as ranked copies of their candidates (only the
// candidates returned are copied).
function copyRanked(
  candidates: readonly RetrievalCandidate[],
  order: Int32Array,
  length: number,
  finals: Float64Array,
  scores: Float64Array,
  count: number,
  record: (scores: Float64Array, offset: number) => Record<string, number>,
): RankedCandidate[] {
  const ranked: RankedCandidate[] = [];
  for (let place = 0; place < length; place++) {
    const at = order[place] as number;
    ranked.push({
      ...(candidates[at] as RetrievalCandidate),
      finalScore: finals[at] as number,
      signals: record(scores, at * count),
    });
  }
  return ranked;
}

// copyRanked for candidates no one else holds: each returned one gets its final score and
// signals itself (the same keys in the same order as a copy).
function completeRanked(
  candidates: readonly RetrievalCandidate[],
  order: Int32Array,
  length: number,
  finals: Float64Array,
  scores: Float64Array,
  count: number,
  record: (scores: Float64Array, offset: number) => Record<string, number>,
): RankedCandidate[] {
  const ranked: RankedCandidate[] = [];
  for (let place = 0; place < length; place++) {
    const at = order[place] as number;
    const candidate = candidates[at] as RankedCandidate;
    candidate.finalScore = finals[at] as number;
    candidate.signals = record(scores, at * count);
    ranked.push(candidate);
  }
  return ranked;
}

interface RerankScratch {
  /** `scores[candidate × signals + signal]`. */
  scores: Float64Array;
  finals: Float64Array;
  /** Candidate positions, best first once selected. */
  order: Int32Array;
}

function createScratch(candidates: number, signals: number): RerankScratch {
  const capacity = Math.max(32, candidates);
  return {
    scores: new Float64Array(capacity * Math.max(1, signals)),
    finals: new Float64Array(capacity),
    order: new Int32Array(capacity),
  };
}

// Writes `signal`'s score of every candidate into column `column` of `scores`, through its
// scorer when it prepares one.
function scoreColumn(
  signal: RerankSignal,
  context: RerankContext,
  scores: Float64Array,
  column: number,
  stride: number,
): void {
  const candidates = context.candidates;
  const size = candidates.length;
  const scorer = signal.prepare?.(context);
  if (scorer !== undefined) {
    for (let at = 0; at < size; at++)
      scores[at * stride + column] = scorer(candidates[at] as RetrievalCandidate);
    return;
  }
  for (let at = 0; at < size; at++) {
    scores[at * stride + column] = signal.score(candidates[at] as RetrievalCandidate, context);
  }
}

// Moves the best `limit` (≤ count) of the first `count` positions of `order` (ascending) to its
// front, best first (ties in recall order: the lower position first), and returns `limit`.
// Insertion into the kept prefix while it is short — a candidate that cannot make the cut
// costs one comparison, and nothing past the cut is sorted; a stable sort for a long one.
function selectBest(order: Int32Array, count: number, finals: Float64Array, limit: number): number {
  if (limit <= 0) return 0;
  if (limit > 32) {
    const positions = Array.from(order.subarray(0, count));
    positions.sort((left, right) => (finals[right] as number) - (finals[left] as number));
    for (let index = 0; index < limit; index++) order[index] = positions[index] as number;
    return limit;
  }
  let kept = 0;
  for (let index = 0; index < count; index++) {
    const at = order[index] as number;
    const score = finals[at] as number;
    // Positions arrive in recall order, so an equal score stays behind the kept ones.
    if (kept === limit && !((finals[order[kept - 1] as number] as number) < score)) continue;
    let place = kept < limit ? kept++ : kept - 1;
    while (place > 0 && (finals[order[place - 1] as number] as number) < score) {
      order[place] = order[place - 1] as number;
      place--;
    }
    order[place] = at;
  }
  return kept;
}

const SEED_SIGNALS = ['vector-score', 'query-overlap', 'origin-diversity', 'content-length'];

// Builds the signal-name → score record of a candidate from its scores (`scores[offset…]`).
// The seed's four signals get an object literal (one hidden class, no keyed stores); others a
// copy of a template filled in by name.
function createSignalRecord(
  names: readonly string[],
): (scores: Float64Array, offset: number) => Record<string, number> {
  if (names.length === SEED_SIGNALS.length && names.every((name, index) => name === SEED_SIGNALS[index])) {
    return (scores, offset) => ({
      'vector-score': scores[offset] as number,
      'query-overlap': scores[offset + 1] as number,
      'origin-diversity': scores[offset + 2] as number,
      'content-length': scores[offset + 3] as number,
    });
  }
  const template: Record<string, number> = {};
  for (const name of names) template[name] = 0;
  return (scores, offset) => {
    const record = { ...template };
    for (let index = 0; index < names.length; index++)
      record[names[index] as string] = scores[offset + index] as number;
    return record;
  };
}
