/**
 * One term's postings in a BM25 index: the slots of the documents that contain it and the
 * term's frequency in each, as parallel growable typed arrays, plus each posting's BM25
 * contribution ("impact") cached for one collection generation.
 */
export interface Bm25Postings {
  /** Postings in use (the arrays may be longer). */
  count: number;
  slots: Int32Array;
  frequencies: Float64Array;
  /** Collection generation `impacts` were computed for; -1 before the first search. */
  generation: number;
  /** `idf·(k1 + 1)·tf / (tf + norm)` per posting, valid for `generation`. */
  impacts: Float64Array;
  /** Largest of `impacts` (an upper bound of the term's contribution), valid for `generation`. */
  maxImpact: number;
  /** `idf·(k1 + 1)` (an impact is `boost·tf / (tf + norm)`), valid for `generation`. */
  boost: number;
  /** Impacts indexed by slot (0 where absent), built on demand for common terms. */
  dense: Float64Array | undefined;
  /** Generation `dense` was built for. */
  denseGeneration: number;
}

/** Empty postings with room for a few documents. */
export function createPostings(): Bm25Postings {
  return {
    count: 0,
    slots: new Int32Array(4),
    frequencies: new Float64Array(4),
    generation: -1,
    impacts: new Float64Array(0),
    maxImpact: 0,
    boost: 0,
    dense: undefined,
    denseGeneration: -1,
  };
}

/** Appends a document's slot and frequency, growing the arrays by doubling. */
export function appendPosting(postings: Bm25Postings, slot: number, frequency: number): void {
  if (postings.count === postings.slots.length) {
    const slots = new Int32Array(postings.count * 2);
    slots.set(postings.slots);
    postings.slots = slots;
    const frequencies = new Float64Array(postings.count * 2);
    frequencies.set(postings.frequencies);
    postings.frequencies = frequencies;
  }
  postings.slots[postings.count] = slot;
  postings.frequencies[postings.count] = frequency;
  postings.count++;
  postings.generation = -1;
}

/** Removes a slot's posting (order of the others kept); false when the slot is absent. */
export function removePosting(postings: Bm25Postings, slot: number): boolean {
  const at = postings.slots.subarray(0, postings.count).indexOf(slot);
  if (at < 0) return false;
  postings.slots.copyWithin(at, at + 1, postings.count);
  postings.frequencies.copyWithin(at, at + 1, postings.count);
  postings.count--;
  postings.generation = -1;
  return true;
}

/**
 * The postings' impacts (and `boost`, `maxImpact`) for `generation`, recomputed when the
 * collection changed since they were cached — the idf included: it depends on the collection
 * only. `documentCount` and `norms` (k1·(1 − b + b·length/avgLength) per slot) are the current
 * ones. The idf is Lucene's `ln(1 + (N − df + 0.5)/(df + 0.5))`, and each impact is computed
 * exactly as a weight-1 term's contribution in {@link Bm25Index.search}, so adding impacts
 * gives the same bits as scoring on the fly.
 */
export function currentImpacts(
  postings: Bm25Postings,
  generation: number,
  documentCount: number,
  k1: number,
  norms: Float64Array,
): Float64Array {
  if (postings.generation === generation) return postings.impacts;
  if (postings.impacts.length < postings.count) postings.impacts = new Float64Array(postings.slots.length);
  const { impacts, slots, frequencies, count } = postings;
  const idf = Math.log(1 + (documentCount - count + 0.5) / (count + 0.5));
  const boost = 1 * idf * (k1 + 1);
  postings.boost = boost;
  let maxImpact = 0;
  for (let index = 0; index < count; index++) {
    const frequency = frequencies[index] as number;
    const impact = (boost * frequency) / (frequency + (norms[slots[index] as number] as number));
    impacts[index] = impact;
    if (impact > maxImpact) maxImpact = impact;
  }
  postings.maxImpact = maxImpact;
  postings.generation = generation;
  return impacts;
}

/**
 * The postings' impacts indexed by slot (0 where the term is absent), for adding a common
 * term to a few documents in O(1) each. Call after {@link currentImpacts} for the same
 * generation; `slotCount` covers every slot in use.
 */
export function currentDenseImpacts(postings: Bm25Postings, slotCount: number): Float64Array {
  if (postings.dense !== undefined && postings.denseGeneration === postings.generation) return postings.dense;
  const dense =
    postings.dense !== undefined && postings.dense.length >= slotCount
      ? postings.dense.fill(0)
      : new Float64Array(slotCount);
  const { slots, impacts, count } = postings;
  for (let index = 0; index < count; index++) dense[slots[index] as number] = impacts[index] as number;
  postings.dense = dense;
  postings.denseGeneration = postings.generation;
  return dense;
}
