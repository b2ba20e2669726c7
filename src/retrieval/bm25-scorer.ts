import { currentDenseImpacts, type PostingsStore } from './bm25-postings.ts';

/**
 * One query term ready to score: its run in the postings store (impacts current, see
 * `currentImpacts`) and its query weight (> 0).
 */
export interface ScoringTerm {
  term: string;
  /** The term's number in the store. */
  number: number;
  /** Offset of its postings in the store's arrays. */
  start: number;
  /** How many postings. */
  count: number;
  weight: number;
  /** `idf·(k1 + 1)`: an impact is `boost·tf / (tf + norm)`. */
  boost: number;
  /** Upper bound of the term's contribution to any document: `weight × max impact`. */
  bound: number;
}

/**
 * Reused per-search buffers (search is synchronous): accumulators (all 0 between searches),
 * touched slots, and result and bound space; see {@link reserveScratch}.
 */
export interface ScoringScratch {
  scores: Float64Array;
  touched: Int32Array;
  /** Slots of the result heap (≥ limit). */
  heap: Int32Array;
  /** Suffix sums of the term bounds (≥ terms + 1). */
  suffix: Float64Array;
  /** `k1·(1 − b + b·length/avgLength)` per slot (one entry per slot in use). */
  norms: Float64Array;
  /** Documents in the index. */
  documentCount: number;
  /** Term frequencies per slot, for looking a term up in a few documents. */
  slotFrequencies: ReadonlyArray<ReadonlyMap<string, number> | undefined>;
  /** The index's postings. */
  postings: PostingsStore;
}

// Relative slack on the bound comparison: a bound is computed from the same rounded numbers
// as the scores, so this covers the rounding of a sum of at most a few hundred terms.
const SLACK = 1 + 1e-9;
// A pruned term is looked up per touched document when its postings are this many times longer.
const LOOKUP_RATIO = 16;

// 1 when `condition` holds, else 0, without a branch: for a condition that varies unpredictably
// from one posting to the next, where a mispredicted branch costs more than the arithmetic. A
// `? 1 : 0` compiles to a branch; `Number(condition)` does not in V8's optimising tier but is
// a slow call in the tier below (decision 064, ninth amendment).
function bit(condition: boolean): number {
  return (condition as unknown as number) | 0;
}

/**
 * Accumulates BM25 scores into `scratch.scores` and returns how many slots it touched
 * (listed in `scratch.touched`). Every document that can be in the top `limit` ends with its
 * exact score: the sum of its terms' contributions in descending-bound order (ties: query
 * order) — one fixed order, so a score never depends on which documents were pruned.
 *
 * Pruning (MaxScore, term at a time): terms are added strongest bound first; once `limit`
 * documents are touched and the bounds of all remaining terms together fall below the
 * `limit`-th best partial score, a document holding only remaining terms can no longer
 * reach the top (partial scores only grow), so the remaining terms only complete the
 * touched documents. `prune: false` scores every document holding a query term (needed
 * when a filter may discard touched documents). Reads the first `termCount` of `terms` and
 * sorts them in place; `scratch` must be reserved for them ({@link reserveScratch}).
 */
export function accumulateScores(
  terms: ScoringTerm[],
  termCount: number,
  limit: number,
  prune: boolean,
  scratch: ScoringScratch,
): number {
  // Insertion sort, in place: a query has a handful of terms.
  const order = terms;
  for (let index = 1; index < termCount; index++) {
    const term = order[index] as ScoringTerm;
    let at = index;
    while (at > 0 && (order[at - 1] as ScoringTerm).bound < term.bound) {
      order[at] = order[at - 1] as ScoringTerm;
      at--;
    }
    order[at] = term;
  }
  const remaining = scratch.suffix;
  remaining[termCount] = 0;
  for (let index = termCount - 1; index >= 0; index--) {
    remaining[index] = (remaining[index + 1] as number) + (order[index] as ScoringTerm).bound;
  }
  const { scores, touched } = scratch;
  const { slots, impacts } = scratch.postings;
  let touchedCount = 0;
  let next = 0;
  let added = 0;
  for (; next < termCount; next++) {
    const rest = (remaining[next] as number) * SLACK;
    // No document scores above the bounds added so far, so the threshold is only worth
    // computing when they beat the remaining bounds.
    if (
      prune &&
      touchedCount >= limit &&
      rest < added &&
      countAbove(touched, touchedCount, scores, rest, limit)
    )
      break;
    // weight × impact is the impact itself for weight 1 (x·1 = x exactly).
    const { start, count, weight } = order[next] as ScoringTerm;
    for (let index = start; index < start + count; index++) {
      const slot = slots[index] as number;
      const previous = scores[slot] as number;
      if (previous === 0) touched[touchedCount++] = slot;
      scores[slot] = previous + weight * (impacts[index] as number);
    }
    added += (order[next] as ScoringTerm).bound;
  }
  for (; next < termCount; next++) completeTouched(order[next] as ScoringTerm, touchedCount, scratch);
  return touchedCount;
}

// Adds a pruned term's contribution to the touched documents only: through its impacts by
// slot when it is in most documents, by scanning its postings, or — when they are much longer
// than the touched list — by looking the term up per document.
function completeTouched(term: ScoringTerm, touchedCount: number, scratch: ScoringScratch): void {
  const { start, count, weight } = term;
  const { scores, touched, slotFrequencies, norms } = scratch;
  if (count * 2 >= scratch.documentCount) {
    // A term in half the documents or more: its impacts by slot (0 where absent, and x + 0 = x).
    const dense = currentDenseImpacts(scratch.postings, term.number, norms.length);
    for (let index = 0; index < touchedCount; index++) {
      const slot = touched[index] as number;
      scores[slot] = (scores[slot] as number) + weight * (dense[slot] as number);
    }
    return;
  }
  if (count <= touchedCount * LOOKUP_RATIO) {
    const { slots, impacts } = scratch.postings;
    // Whether a posting's document was touched is unpredictable: no branch. An untouched one
    // is stored its 0 again, `0 + w·i·0`; an impact is finite and ≥ 0, so that is +0, and
    // `x + w·i·1` is `x + w·i` to the bit.
    for (let index = start; index < start + count; index++) {
      const slot = slots[index] as number;
      const previous = scores[slot] as number;
      scores[slot] = previous + weight * (impacts[index] as number) * bit(previous !== 0);
    }
    return;
  }
  // Same expression as the cached impact, so the same bits.
  const { boost, term: key } = term;
  for (let index = 0; index < touchedCount; index++) {
    const slot = touched[index] as number;
    const frequency = slotFrequencies[slot]?.get(key);
    if (frequency === undefined || !(frequency > 0)) continue;
    const impact = (boost * frequency) / (frequency + (norms[slot] as number));
    scores[slot] = (scores[slot] as number) + weight * impact;
  }
}

/**
 * Whether at least `k` of the first `count` slots score above `threshold` — that is, whether
 * the `k`-th largest score exceeds it. One pass that stops at the `k`-th, no ordering.
 */
export function countAbove(
  slots: Int32Array,
  count: number,
  scores: Float64Array,
  threshold: number,
  k: number,
): boolean {
  // Whether a score is above is unpredictable: counted without a branch, and the count
  // checked once per slot (a branch that fails until the end).
  let above = 0;
  for (let index = 0; index < count; index++) {
    above += bit((scores[slots[index] as number] as number) > threshold);
    if (above >= k) return true;
  }
  return false;
}

/**
 * Grows `scratch` (never shrinks) for `slots` slots, a result of `limit` and `terms` query
 * terms; reallocated accumulators start zeroed.
 */
export function reserveScratch(scratch: ScoringScratch, slots: number, limit: number, terms: number): void {
  if (scratch.scores.length < slots) {
    scratch.scores = new Float64Array(Math.max(64, slots * 2));
    scratch.touched = new Int32Array(scratch.scores.length);
  }
  if (scratch.heap.length < limit) scratch.heap = new Int32Array(Math.max(32, limit));
  if (scratch.suffix.length < terms + 1) scratch.suffix = new Float64Array(Math.max(16, terms * 2));
}
