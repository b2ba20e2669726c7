import type { Analyzer } from './analyzer.ts';
import type { RetrievalCandidate } from './candidate.ts';

/**
 * Term ids of passages a recall source of this package holds already analysed (the
 * conversation index: each turn's own text), so the query-overlap signal counts a recalled
 * passage's query terms from them instead of looking the passage up by its text in its term
 * cache. Internal: not exported from `ctxloom/retrieval`; a custom source keeps the lookup.
 */
export interface TermSpace {
  /** The analyzer every passage of this space was analysed with. */
  readonly analyzer: Analyzer;
  /**
   * Every passage's ids, one after another: at a passage's offset, how many ids it has, then
   * its sorted distinct ids. Grown by copying (offsets stay valid) and replaced by a new list
   * when cleared (a list held from before keeps its contents).
   */
  readonly pool: Int32Array;
  /** Sorted distinct ids of `terms` (distinct already) into `pool`, taking new ids as needed; returns their offset. */
  idsOf(terms: Iterable<string>): number;
  /** Notes that the ids at `offset` are no longer used (their room is reused once enough is). */
  release(offset: number): void;
  /**
   * Whether more than half of `pool` is released: the owner should forget every offset it
   * holds and call {@link TermSpace.clearPool}.
   */
  readonly wasteful: boolean;
  /** Starts a new, empty `pool` (the dictionary is kept: an id is never reissued). */
  clearPool(): void;
  /**
   * For each passage, how many of `terms` (the query's distinct terms) its ids in `pool` (at
   * `offsets`) hold, divided by `size`, into `out[passage × stride + column]`.
   */
  shareOfQueryTerms(
    pool: Int32Array,
    offsets: readonly number[],
    count: number,
    terms: readonly string[],
    size: number,
    out: Float64Array,
    column: number,
    stride: number,
  ): void;
}

/**
 * Creates a {@link TermSpace} over `analyzer`. Its dictionary only grows: an id is never
 * reissued, so a passage's ids stay valid for as long as its text does.
 */
export function createTermSpace(analyzer: Analyzer): TermSpace {
  const dictionary = new Map<string, number>();
  // marks[id] === stamp ⇔ a term of the query being counted.
  let marks = new Int32Array(256);
  let stamp = 0;
  // The passages' ids in one list, not a list per passage: the overlap count reads 20 passages
  // per query, and 20 lists scattered over the heap cost two cache misses each where one
  // compact list is mostly in cache.
  let pool = new Int32Array(1024);
  let used = 0;
  let released = 0;
  const scratch: number[] = [];
  return {
    analyzer,
    get pool() {
      return pool;
    },
    idsOf(terms) {
      let count = 0;
      for (const term of terms) {
        let id = dictionary.get(term);
        if (id === undefined) {
          id = dictionary.size;
          dictionary.set(term, id);
        }
        scratch[count++] = id;
      }
      if (dictionary.size > marks.length) {
        const grown = new Int32Array(Math.max(dictionary.size, marks.length * 2));
        grown.set(marks);
        marks = grown;
      }
      if (used + count + 1 > pool.length) {
        const grown = new Int32Array(Math.max(pool.length * 2, used + count + 1));
        grown.set(pool.subarray(0, used));
        pool = grown;
      }
      const offset = used;
      pool[offset] = count;
      for (let index = 0; index < count; index++) pool[offset + 1 + index] = scratch[index] as number;
      pool.subarray(offset + 1, offset + 1 + count).sort();
      used += count + 1;
      return offset;
    },
    release(offset) {
      released += (pool[offset] as number) + 1;
    },
    get wasteful() {
      return released * 2 > used;
    },
    clearPool() {
      pool = new Int32Array(1024);
      used = 0;
      released = 0;
    },
    shareOfQueryTerms(ids, offsets, count, terms, size, out, column, stride) {
      if (stamp === 0x7fffffff) {
        marks.fill(0);
        stamp = 0;
      }
      stamp++;
      for (let index = 0; index < terms.length; index++) {
        const id = dictionary.get(terms[index] as string);
        if (id !== undefined) marks[id] = stamp;
      }
      for (let at = 0; at < count; at++) {
        const from = (offsets[at] as number) + 1;
        const end = from + (ids[from - 1] as number);
        // No branch per id: whether an id is the query's is unpredictable, and so is where a
        // passage's ids pass the highest marked one (a `? 1 : 0` compiles to a branch). `other`
        // is 0 for a mark, and `(other | -other) >>> 31` is 1 for any other value.
        let found = 0;
        for (let index = from; index < end; index++) {
          const other = (marks[ids[index] as number] as number) ^ stamp;
          found += 1 - ((other | -other) >>> 31);
        }
        out[at * stride + column] = found / size;
      }
    },
  };
}

/**
 * What the last recall of a source of this package held: the list it returned, and per
 * candidate the content its ids are of. One slot for the whole package, overwritten by every
 * recall: a rerank of another list, or of this one after a candidate was replaced or its
 * content changed, does not use it.
 */
export interface RecalledTerms {
  list: readonly RetrievalCandidate[] | undefined;
  space: TermSpace | undefined;
  /** The space's pool the offsets are in (as it was when the recall ended). */
  pool: Int32Array;
  /** Candidates noted: the first `count` entries of `contents` and `offsets` are this recall's. */
  count: number;
  contents: string[];
  /** Each candidate's offset in `pool`. */
  offsets: number[];
}

// `count`, not the lists' `length`: setting an array's length is a runtime call. Entries past
// `count` are an earlier, longer recall's until overwritten.
const recalled: RecalledTerms = {
  list: undefined,
  space: undefined,
  pool: new Int32Array(0),
  count: 0,
  contents: [],
  offsets: [],
};

/** Starts the record of a recall into `list` (filled with {@link noteRecalled}). */
export function beginRecall(list: readonly RetrievalCandidate[], space: TermSpace): void {
  recalled.list = list;
  recalled.space = space;
  recalled.count = 0;
}

/**
 * Notes the next candidate of the recall begun: its content and the offset of that content's
 * term ids in the space's pool.
 */
export function noteRecalled(content: string, offset: number): void {
  const at = recalled.count++;
  recalled.contents[at] = content;
  recalled.offsets[at] = offset;
}

/**
 * Ends the record of the recall begun with the space's pool as it is now: a recall only grows
 * the pool, by copying, so its last array holds every offset noted (read once, not per
 * candidate).
 */
export function endRecall(pool: Int32Array): void {
  recalled.pool = pool;
}

/**
 * The term ids of `candidates`, when they are the last recall's list, unchanged, analysed by
 * `analyzer` (the space and the ids by position), else undefined.
 */
export function recalledTermsOf(
  candidates: readonly RetrievalCandidate[],
  analyzer: Analyzer,
): RecalledTerms | undefined {
  if (recalled.list !== candidates || recalled.space?.analyzer !== analyzer) return undefined;
  const contents = recalled.contents;
  const count = recalled.count;
  if (count !== candidates.length) return undefined;
  for (let at = 0; at < count; at++) {
    if ((candidates[at] as RetrievalCandidate).content !== contents[at]) return undefined;
  }
  return recalled;
}
