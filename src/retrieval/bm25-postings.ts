/**
 * Every term's postings of one BM25 index in shared arrays: the slots of the documents that
 * contain a term and the term's frequency in each, as a run of one `Int32Array` and one
 * `Float64Array`, plus each posting's BM25 contribution ("impact") cached for one collection
 * generation in a third array at the same offsets. A term's facts (its run and cached numbers)
 * are one row of a `Float64Array`, found by the term's number.
 *
 * Why shared arrays: a query reads ~5 terms' postings, and an object with two typed arrays per
 * term put each term's reads in ~8 places on the heap — cache misses on a CPU with a small L2
 * (decision 064, issue 26 item 5). Here a term costs its number's lookup, its row and its runs.
 *
 * Growth: a full run moves to the arrays' end with twice its capacity, leaving its old entries
 * released. The arrays grow by doubling when the end reaches them, unless more than half their
 * entries are released: then the live runs are packed into new arrays instead (compaction),
 * in term-number order, each keeping its postings' order and capacity.
 */
export interface PostingsStore {
  /** Term → its number (a row of `facts`); a term is here while it has postings. */
  readonly numbers: Map<string, number>;
  /** {@link FACTS} numbers per term number; see the `FACT_*` offsets. */
  facts: Float64Array;
  /** Term numbers handed out so far (rows in use or free). */
  termCount: number;
  /** Term numbers free for reuse (their terms lost their last posting). */
  readonly freeNumbers: number[];
  /** Document slot per posting. */
  slots: Int32Array;
  /** Term frequency per posting. */
  frequencies: Float64Array;
  /** Impact per posting: `idf·(k1 + 1)·tf / (tf + norm)`, valid for the term's generation. */
  impacts: Float64Array;
  /** Entries of the arrays handed to runs (live or released). */
  end: number;
  /** Entries below `end` no run holds (moved or released runs). */
  released: number;
  /** Impacts indexed by slot (0 where absent) per term number, built on demand for common terms. */
  readonly dense: Array<Float64Array | undefined>;
}

/** Numbers per term in `facts`. */
export const FACTS = 8;
/** Offset of the term's run in the posting arrays. */
export const FACT_START = 0;
/** Postings in use. */
export const FACT_COUNT = 1;
/** Entries the run holds. */
const FACT_CAPACITY = 2;
/** Collection generation the impacts, `boost` and `maxImpact` were computed for; -1 before. */
const FACT_GENERATION = 3;
/** `idf·(k1 + 1)` (an impact is `boost·tf / (tf + norm)`), valid for the generation. */
export const FACT_BOOST = 4;
/** Largest impact (an upper bound of the term's contribution), valid for the generation. */
export const FACT_MAX_IMPACT = 5;
/** Generation the term's `dense` impacts were built for. */
const FACT_DENSE_GENERATION = 6;
// A new term's run holds this many postings.
const FIRST_CAPACITY = 4;

/** An empty store. */
export function createPostingsStore(): PostingsStore {
  return {
    numbers: new Map(),
    facts: new Float64Array(FACTS * 8),
    termCount: 0,
    freeNumbers: [],
    slots: new Int32Array(16),
    frequencies: new Float64Array(16),
    impacts: new Float64Array(16),
    end: 0,
    released: 0,
    dense: [],
  };
}

/** Appends a document's slot and frequency to `term`'s postings. */
export function appendPosting(store: PostingsStore, term: string, slot: number, frequency: number): void {
  let number = store.numbers.get(term);
  if (number === undefined) {
    number = newTerm(store);
    store.numbers.set(term, number);
  }
  const row = number * FACTS;
  const count = store.facts[row + FACT_COUNT] as number;
  if (count === store.facts[row + FACT_CAPACITY]) moveRun(store, number, count * 2);
  const at = (store.facts[row + FACT_START] as number) + count;
  store.slots[at] = slot;
  store.frequencies[at] = frequency;
  store.facts[row + FACT_COUNT] = count + 1;
  store.facts[row + FACT_GENERATION] = -1;
}

/**
 * Removes a slot's posting from `term`'s (order of the others kept); false when absent. A term
 * left with none is forgotten: its number and run are released.
 */
export function removePosting(store: PostingsStore, term: string, slot: number): boolean {
  const number = store.numbers.get(term);
  if (number === undefined) return false;
  const { facts, slots, frequencies } = store;
  const row = number * FACTS;
  const start = facts[row + FACT_START] as number;
  const end = start + (facts[row + FACT_COUNT] as number);
  let at = start;
  while (at < end && slots[at] !== slot) at++;
  if (at === end) return false;
  slots.copyWithin(at, at + 1, end);
  frequencies.copyWithin(at, at + 1, end);
  facts[row + FACT_COUNT] = end - start - 1;
  facts[row + FACT_GENERATION] = -1;
  if (end - start === 1) {
    store.released += facts[row + FACT_CAPACITY] as number;
    facts[row + FACT_START] = 0;
    facts[row + FACT_CAPACITY] = 0;
    store.dense[number] = undefined;
    store.numbers.delete(term);
    store.freeNumbers.push(number);
  }
  return true;
}

// A fresh row with an empty run (capacity 0: the first append gives it one).
function newTerm(store: PostingsStore): number {
  let number = store.freeNumbers.pop();
  if (number === undefined) {
    number = store.termCount++;
    if (store.facts.length < store.termCount * FACTS) {
      const facts = new Float64Array(store.facts.length * 2);
      facts.set(store.facts);
      store.facts = facts;
    }
  }
  const row = number * FACTS;
  store.facts.fill(0, row, row + FACTS);
  store.facts[row + FACT_GENERATION] = -1;
  store.facts[row + FACT_DENSE_GENERATION] = -1;
  return number;
}

// Moves a term's run to the arrays' end with room for `capacity` postings (at least the first
// capacity); its old entries are released. When the arrays are full, over half released packs
// the live runs (this one with its new capacity) into new arrays, else the arrays double.
function moveRun(store: PostingsStore, number: number, capacity: number): void {
  const size = Math.max(FIRST_CAPACITY, capacity);
  if (store.end + size > store.slots.length) {
    if (store.released * 2 > store.end) {
      compact(store, number, size);
      return;
    }
    grow(store, 2 * (store.end + size));
  }
  const { facts, slots, frequencies } = store;
  const row = number * FACTS;
  const start = facts[row + FACT_START] as number;
  const count = facts[row + FACT_COUNT] as number;
  slots.copyWithin(store.end, start, start + count);
  frequencies.copyWithin(store.end, start, start + count);
  store.released += facts[row + FACT_CAPACITY] as number;
  facts[row + FACT_START] = store.end;
  facts[row + FACT_CAPACITY] = size;
  store.end += size;
}

// The arrays at `length` entries, the entries below `end` kept.
function grow(store: PostingsStore, length: number): void {
  const slots = new Int32Array(length);
  slots.set(store.slots.subarray(0, store.end));
  store.slots = slots;
  const frequencies = new Float64Array(length);
  frequencies.set(store.frequencies.subarray(0, store.end));
  store.frequencies = frequencies;
  const impacts = new Float64Array(length);
  impacts.set(store.impacts.subarray(0, store.end));
  store.impacts = impacts;
}

// Packs the live runs into new arrays in term-number order (each keeps its postings' order and
// capacity; term `grown` gets `size`), leaving nothing released.
function compact(store: PostingsStore, grown: number, size: number): void {
  const length = Math.max(store.slots.length, 2 * (store.end - store.released + size));
  const slots = new Int32Array(length);
  const frequencies = new Float64Array(length);
  const impacts = new Float64Array(length);
  const { facts } = store;
  let end = 0;
  for (let number = 0; number < store.termCount; number++) {
    const row = number * FACTS;
    const capacity = number === grown ? size : (facts[row + FACT_CAPACITY] as number);
    if (capacity === 0) continue;
    const start = facts[row + FACT_START] as number;
    const count = facts[row + FACT_COUNT] as number;
    slots.set(store.slots.subarray(start, start + count), end);
    frequencies.set(store.frequencies.subarray(start, start + count), end);
    impacts.set(store.impacts.subarray(start, start + count), end);
    facts[row + FACT_START] = end;
    facts[row + FACT_CAPACITY] = capacity;
    end += capacity;
  }
  store.slots = slots;
  store.frequencies = frequencies;
  store.impacts = impacts;
  store.end = end;
  store.released = 0;
}

/**
 * Brings term `number`'s impacts (in `store.impacts` over its run) and its `boost` and
 * `maxImpact` facts to `generation`, recomputing them when the collection changed since they
 * were cached — the idf included: it depends on the collection only. `documentCount` and
 * `norms` (k1·(1 − b + b·length/avgLength) per slot) are the current ones. The idf is Lucene's
 * `ln(1 + (N − df + 0.5)/(df + 0.5))`, and each impact is computed exactly as a weight-1 term's
 * contribution in {@link Bm25Index.search}, so adding impacts gives the same bits as scoring on
 * the fly.
 */
export function currentImpacts(
  store: PostingsStore,
  number: number,
  generation: number,
  documentCount: number,
  k1: number,
  norms: Float64Array,
): void {
  const { facts } = store;
  const row = number * FACTS;
  if (facts[row + FACT_GENERATION] === generation) return;
  const { impacts, slots, frequencies } = store;
  const start = facts[row + FACT_START] as number;
  const count = facts[row + FACT_COUNT] as number;
  const idf = Math.log(1 + (documentCount - count + 0.5) / (count + 0.5));
  const boost = 1 * idf * (k1 + 1);
  let maxImpact = 0;
  for (let index = start; index < start + count; index++) {
    const frequency = frequencies[index] as number;
    const impact = (boost * frequency) / (frequency + (norms[slots[index] as number] as number));
    impacts[index] = impact;
    if (impact > maxImpact) maxImpact = impact;
  }
  facts[row + FACT_BOOST] = boost;
  facts[row + FACT_MAX_IMPACT] = maxImpact;
  facts[row + FACT_GENERATION] = generation;
}

/**
 * Term `number`'s impacts indexed by slot (0 where the term is absent), for adding a common
 * term to a few documents in O(1) each. Call after {@link currentImpacts} for the same
 * generation; `slotCount` covers every slot in use.
 */
export function currentDenseImpacts(store: PostingsStore, number: number, slotCount: number): Float64Array {
  const { facts } = store;
  const row = number * FACTS;
  const cached = store.dense[number];
  if (cached !== undefined && facts[row + FACT_DENSE_GENERATION] === facts[row + FACT_GENERATION])
    return cached;
  const dense =
    cached !== undefined && cached.length >= slotCount ? cached.fill(0) : new Float64Array(slotCount);
  const { slots, impacts } = store;
  const start = facts[row + FACT_START] as number;
  const end = start + (facts[row + FACT_COUNT] as number);
  for (let index = start; index < end; index++) dense[slots[index] as number] = impacts[index] as number;
  store.dense[number] = dense;
  facts[row + FACT_DENSE_GENERATION] = facts[row + FACT_GENERATION] as number;
  return dense;
}
