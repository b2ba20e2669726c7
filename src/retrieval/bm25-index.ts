import { CtxloomError } from '../core/index.ts';
import { type Analyzer, createAnalyzer, distinctTermsOf } from './analyzer.ts';
import {
  appendPosting,
  createPostingsStore,
  currentImpacts,
  FACT_BOOST,
  FACT_COUNT,
  FACT_MAX_IMPACT,
  FACT_START,
  FACTS,
  removePosting,
} from './bm25-postings.ts';
import { accumulateScores, reserveScratch, type ScoringScratch, type ScoringTerm } from './bm25-scorer.ts';
import { topSlots } from './top-slots.ts';

/** Format version written by {@link Bm25Index.toJSON}; {@link loadBm25Index} reads only this. */
export const BM25_FORMAT_VERSION = 1;

/** Options of {@link createBm25Index}. */
export interface Bm25IndexOptions {
  /** Analyzer for documents and queries; default {@link createAnalyzer}(). */
  analyzer?: Analyzer;
  /** Term-frequency saturation, default 1.2, range ≥ 0. */
  k1?: number;
  /** Length normalisation, default 0.75, range 0..1. */
  b?: number;
}

/** One search hit: a document id and its raw BM25 score (> 0, unbounded). */
export interface Bm25Hit {
  id: string;
  score: number;
}

/** Options of {@link Bm25Index.search}. */
export interface Bm25SearchOptions {
  /** Most hits returned, default 20, ≥ 0. */
  limit?: number;
  /** Only hits whose id passes (e.g. one conversation, one namespace). */
  filter?: (id: string) => boolean;
}

/** The saved form of an index (JSON-safe). */
export interface SerializedBm25Index {
  version: typeof BM25_FORMAT_VERSION;
  analyzer: string;
  k1: number;
  b: number;
  /** `[id, length, terms, frequencies]` per document. */
  documents: Array<[string, number, string[], number[]]>;
}

/**
 * An in-memory Okapi BM25 inverted index with incremental add/remove and a versioned saved
 * form. Scores use the Lucene/BM25+-style IDF `ln(1 + (N − df + 0.5)/(df + 0.5))`, so common
 * terms never score negative. Each posting's contribution is cached until the collection
 * changes, and a search skips documents that hold only terms too weak to reach the top
 * `limit` (MaxScore pruning; the hits and scores are those of scoring every document).
 */
export interface Bm25Index {
  readonly analyzer: Analyzer;
  /** Number of documents. */
  readonly size: number;
  /** Adds a document or replaces the one with the same id. */
  add(id: string, text: string): void;
  /**
   * Adds or replaces a document from term frequencies already produced by this index's
   * analyzer (e.g. merged from several analysed texts); length = the sum of frequencies.
   * The index keeps the map: do not change it afterwards.
   */
  addFrequencies(id: string, frequencies: ReadonlyMap<string, number>): void;
  /** Removes a document; false when absent. */
  remove(id: string): boolean;
  has(id: string): boolean;
  /** Best hits first (ties: earlier-added first). An empty or all-stopword query returns []. */
  search(query: string, options?: Bm25SearchOptions): Bm25Hit[];
  /** Like `search` with already analysed terms, each with a weight (> 0) on its contribution. */
  searchTerms(terms: ReadonlyMap<string, number>, options?: Bm25SearchOptions): Bm25Hit[];
  /** Analysed term frequencies of a stored document (a copy), or undefined. */
  termFrequencies(id: string): Map<string, number> | undefined;
  toJSON(): SerializedBm25Index;
}

interface DocumentEntry {
  slot: number;
  length: number;
  frequencies: Map<string, number>;
}

/**
 * Creates an empty {@link Bm25Index}.
 * @example
 * const index = createBm25Index();
 * index.add('t1', 'Caroline went to the LGBTQ support group');
 * index.search('support group'); // [{ id: 't1', score: … }]
 */
export function createBm25Index(options: Bm25IndexOptions = {}): Bm25Index {
  return buildIndex(options, []);
}

/**
 * Restores an index saved with {@link Bm25Index.toJSON}. Throws `parse-error` for another
 * version or a malformed payload, and `invalid-config` when `analyzer` differs from the one the
 * index was built with (terms would not match).
 */
export function loadBm25Index(data: unknown, options: Bm25IndexOptions = {}): Bm25Index {
  if (
    typeof data !== 'object' ||
    data === null ||
    (data as { version?: unknown }).version !== BM25_FORMAT_VERSION
  ) {
    throw new CtxloomError({
      code: 'parse-error',
      message: `unsupported BM25 index format (expected version ${BM25_FORMAT_VERSION})`,
      path: 'version',
    });
  }
  const saved = data as SerializedBm25Index;
  if (!Array.isArray(saved.documents)) {
    throw new CtxloomError({ code: 'parse-error', message: 'documents must be an array', path: 'documents' });
  }
  const index = buildIndex(
    { ...options, k1: options.k1 ?? saved.k1, b: options.b ?? saved.b },
    saved.documents,
  );
  if (index.analyzer.name !== saved.analyzer) {
    throw new CtxloomError({
      code: 'invalid-config',
      message: `index was built with analyzer "${saved.analyzer}", not "${index.analyzer.name}"`,
      path: 'analyzer',
    });
  }
  return index;
}

function buildIndex(options: Bm25IndexOptions, initial: SerializedBm25Index['documents']): Bm25Index {
  const analyzer = options.analyzer ?? createAnalyzer();
  const k1 = options.k1 ?? 1.2;
  const b = options.b ?? 0.75;
  if (!(k1 >= 0)) throw new CtxloomError({ code: 'invalid-argument', message: 'k1 must be ≥ 0', path: 'k1' });
  if (!(b >= 0 && b <= 1))
    throw new CtxloomError({ code: 'invalid-argument', message: 'b must be within 0..1', path: 'b' });

  const documents = new Map<string, DocumentEntry>();
  const postings = createPostingsStore();
  const slotIds: Array<string | undefined> = [];
  const slotLengths: number[] = [];
  const slotFrequencies: Array<Map<string, number> | undefined> = [];
  const freeSlots: number[] = [];
  let totalLength = 0;
  // Bumped by every add and remove: document count and average length (so every idf and
  // norm) change, which invalidates the cached norms and impacts.
  let generation = 0;
  let norms = new Float64Array(0);
  let normsGeneration = -1;
  // Per-search buffers, reused (search is synchronous).
  const scratch: ScoringScratch = {
    scores: new Float64Array(0),
    touched: new Int32Array(0),
    heap: new Int32Array(0),
    suffix: new Float64Array(0),
    norms: new Float64Array(0),
    documentCount: 0,
    slotFrequencies,
    postings,
  };
  // The touched slots best first, as far as a filtered search ranked them (keepBestPassing).
  let ranked = new Int32Array(0);
  // The search's scoring terms are its first entries (a count, not `length`: setting an
  // array's length is a runtime call).
  const scoring: ScoringTerm[] = [];
  const pool: ScoringTerm[] = [];
  // The last ranking's slots and scores, best first (read before the next search).
  const result = { slots: new Int32Array(0), scores: new Float64Array(0) };

  const remove = (id: string): boolean => {
    const entry = documents.get(id);
    if (entry === undefined) return false;
    for (const term of entry.frequencies.keys()) removePosting(postings, term, entry.slot);
    documents.delete(id);
    slotIds[entry.slot] = undefined;
    slotFrequencies[entry.slot] = undefined;
    freeSlots.push(entry.slot);
    totalLength -= entry.length;
    generation++;
    return true;
  };

  const insert = (id: string, length: number, frequencies: Map<string, number>): void => {
    if (documents.has(id)) remove(id);
    const slot = freeSlots.pop() ?? slotIds.length;
    slotIds[slot] = id;
    slotLengths[slot] = length;
    slotFrequencies[slot] = frequencies;
    documents.set(id, { slot, length, frequencies });
    totalLength += length;
    generation++;
    for (const [term, frequency] of frequencies) {
      // A zero frequency is no occurrence (it would score 0 and be touched twice).
      if (!(frequency > 0)) continue;
      appendPosting(postings, term, slot, frequency);
    }
  };

  // k1·(1 − b + b·length/avgLength) per slot, recomputed after the collection changed.
  const currentNorms = (): Float64Array => {
    if (normsGeneration === generation) return norms;
    const averageLength = totalLength / Math.max(1, documents.size) || 1;
    norms = new Float64Array(slotIds.length);
    for (let slot = 0; slot < slotIds.length; slot++) {
      norms[slot] = k1 * (1 - b + (b * (slotLengths[slot] ?? 0)) / averageLength);
    }
    normsGeneration = generation;
    return norms;
  };

  // The best `limit` documents for distinct `terms` (each with its weight, > 0 to count; 1
  // when `weights` is undefined), best first, into `result`; returns how many. Its parts are
  // functions of their own: a large function reaches V8's optimising tier only after more
  // calls, and an agent calls a search a few times per turn.
  const rank = (
    terms: readonly string[],
    weights: readonly number[] | undefined,
    limit: number,
    filter: ((id: string) => boolean) | undefined,
  ): number => {
    const count = documents.size;
    if (count === 0 || limit <= 0) return 0;
    const slotNorms = currentNorms();
    const used = scoringTermsOf(terms, weights, count, slotNorms);
    reserveScratch(scratch, slotIds.length, Math.ceil(Math.min(limit, count)), used);
    scratch.norms = slotNorms;
    scratch.documentCount = count;
    const touchedCount = accumulateScores(scoring, used, limit, filter === undefined, scratch);
    return filter === undefined
      ? keepBest(touchedCount, limit)
      : keepBestPassing(touchedCount, limit, filter);
  };
  // The scoring entries of `terms` found in the index, into `scoring`; returns how many.
  const scoringTermsOf = (
    terms: readonly string[],
    weights: readonly number[] | undefined,
    count: number,
    slotNorms: Float64Array,
  ): number => {
    let used = 0;
    for (let index = 0; index < terms.length; index++) {
      const term = terms[index] as string;
      const weight = weights === undefined ? 1 : (weights[index] as number);
      const number = postings.numbers.get(term);
      if (number === undefined || !(weight > 0)) continue;
      // The idf and impacts are computed once per collection generation.
      currentImpacts(postings, number, generation, count, k1, slotNorms);
      const { facts } = postings;
      const row = number * FACTS;
      // Pooled: a search allocates no scoring entries once the pool covers its terms.
      let entry = pool[used];
      if (entry === undefined) {
        entry = { term, number: 0, start: 0, count: 0, weight, boost: 0, bound: 0 };
        pool[used] = entry;
      }
      entry.term = term;
      entry.number = number;
      // Integers (`| 0`), so the entry holds them unboxed.
      entry.start = (facts[row + FACT_START] as number) | 0;
      entry.count = (facts[row + FACT_COUNT] as number) | 0;
      entry.weight = weight;
      entry.boost = facts[row + FACT_BOOST] as number;
      entry.bound = weight * (facts[row + FACT_MAX_IMPACT] as number);
      scoring[used++] = entry;
    }
    return used;
  };
  // The best `limit` of the touched slots into `result`; every touched accumulator is left
  // zeroed for the next search. Returns how many.
  const keepBest = (touchedCount: number, limit: number): number => {
    const { scores, touched, heap } = scratch;
    const size = storeBest(topSlots(touched, touchedCount, scores, limit, heap));
    for (let index = 0; index < touchedCount; index++) scores[touched[index] as number] = 0;
    return size;
  };
  // keepBest of the touched slots whose id passes `filter`, asking the filter about the best
  // first: the best 2·`limit` touched slots, best first — a search touching every document of
  // a long conversation then asks about a few more than `limit`, not about all of them. When
  // fewer than `limit` of those pass, every slot ranked below them is asked, as before, and the
  // best of those that pass follow. The order is total (score, then slot), so the result is
  // the best `limit` that pass, as filtering first gives; at worst the filter is asked about
  // every touched slot once, as it always was.
  const keepBestPassing = (touchedCount: number, limit: number, filter: (id: string) => boolean): number => {
    const { scores, touched, heap } = scratch;
    try {
      const want = Math.min(touchedCount, limit * 2);
      if (ranked.length < want) ranked = new Int32Array(Math.max(32, want * 2));
      const size = topSlots(touched, touchedCount, scores, want, ranked);
      let passing = 0;
      for (let asked = 0; asked < size && passing < limit; asked++) {
        const slot = ranked[asked] as number;
        if (filter(slotIds[slot] as string)) heap[passing++] = slot;
      }
      if (passing >= limit || size >= touchedCount) return storeBest(passing);
      // All of the best `size` were asked; the rest rank below the last of them.
      const lastSlot = ranked[size - 1] as number;
      const lastScore = scores[lastSlot] as number;
      if (ranked.length < touchedCount) ranked = new Int32Array(touchedCount);
      let rest = 0;
      for (let index = 0; index < touchedCount; index++) {
        const slot = touched[index] as number;
        const score = scores[slot] as number;
        const below = score < lastScore || (score === lastScore && slot > lastSlot);
        if (below && filter(slotIds[slot] as string)) ranked[rest++] = slot;
      }
      const more = topSlots(ranked, rest, scores, limit - passing, heap.subarray(passing));
      return storeBest(passing + more);
    } finally {
      // Even when the filter throws, the accumulators are left zeroed for the next search.
      for (let index = 0; index < touchedCount; index++) scores[touched[index] as number] = 0;
    }
  };
  // The first `size` slots of the scratch heap, best first, and their scores into `result`.
  const storeBest = (size: number): number => {
    const { scores, heap } = scratch;
    if (result.slots.length < size) {
      result.slots = new Int32Array(Math.max(32, size));
      result.scores = new Float64Array(result.slots.length);
    }
    for (let index = 0; index < size; index++) {
      const slot = heap[index] as number;
      result.slots[index] = slot;
      result.scores[index] = scores[slot] as number;
    }
    return size;
  };
  const hitsOf = (size: number): Bm25Hit[] => {
    const hits: Bm25Hit[] = [];
    for (let index = 0; index < size; index++) {
      hits.push({
        id: slotIds[result.slots[index] as number] as string,
        score: result.scores[index] as number,
      });
    }
    return hits;
  };
  // A query's distinct analysed terms in order of first occurrence.
  const queryTerms = (query: string): readonly string[] => distinctTermsOf(analyzer, query);

  for (const [position, entry] of initial.entries()) {
    const [id, length, terms, frequencies] = Array.isArray(entry) ? entry : [];
    if (
      typeof id !== 'string' ||
      typeof length !== 'number' ||
      !Array.isArray(terms) ||
      !Array.isArray(frequencies)
    ) {
      throw new CtxloomError({
        code: 'parse-error',
        message: 'malformed document entry',
        path: `documents[${position}]`,
      });
    }
    insert(id, length, new Map(terms.map((term, termIndex) => [term, Number(frequencies[termIndex] ?? 0)])));
  }

  const index: Bm25Index = {
    analyzer,
    get size() {
      return documents.size;
    },
    add(id, text) {
      const terms = analyzer.analyze(text);
      const frequencies = new Map<string, number>();
      for (const term of terms) frequencies.set(term, (frequencies.get(term) ?? 0) + 1);
      insert(id, terms.length, frequencies);
    },
    addFrequencies(id, frequencies) {
      let length = 0;
      for (const frequency of frequencies.values()) length += frequency;
      insert(id, length, frequencies as Map<string, number>);
    },
    remove,
    has: (id) => documents.has(id),
    search(query, searchOptions = {}) {
      return hitsOf(rank(queryTerms(query), undefined, searchOptions.limit ?? 20, searchOptions.filter));
    },
    searchTerms(terms, searchOptions = {}) {
      return hitsOf(
        rank([...terms.keys()], [...terms.values()], searchOptions.limit ?? 20, searchOptions.filter),
      );
    },
    termFrequencies: (id) => {
      const entry = documents.get(id);
      return entry === undefined ? undefined : new Map(entry.frequencies);
    },
    toJSON() {
      const saved: SerializedBm25Index['documents'] = [];
      for (const [id, entry] of documents) {
        saved.push([id, entry.length, [...entry.frequencies.keys()], [...entry.frequencies.values()]]);
      }
      return { version: BM25_FORMAT_VERSION, analyzer: analyzer.name, k1, b, documents: saved };
    },
  };
  slotAccess.set(index, {
    search: (query, limit) => rank(queryTerms(query), undefined, limit, undefined),
    lastSlots: () => result.slots,
    lastScores: () => result.scores,
    ids: slotIds,
    slotOf: (id) => documents.get(id)?.slot ?? -1,
  });
  return index;
}

/**
 * Slot-level access to a BM25 index for the indexes of this package built on one (the
 * conversation index keeps its turns by slot, so a hit needs no lookup by id and no hit
 * object). Not exported from `ctxloom/retrieval`.
 */
export interface Bm25Slots {
  /** Ranks `query` as `search` does (no filter) and returns how many hits; read them with `lastSlots`/`lastScores` before the next search. */
  search(query: string, limit: number): number;
  /** The last search's slots by rank, 0 = best (valid up to the count it returned, until the next search). */
  lastSlots(): Int32Array;
  /** The last search's BM25 scores by rank (as `lastSlots`). */
  lastScores(): Float64Array;
  /** Document id by slot (undefined for a free slot): the index's own list, read-only. */
  readonly ids: ReadonlyArray<string | undefined>;
  /** Slot of the document `id`, or -1. A document keeps its slot until it is removed or replaced. */
  slotOf(id: string): number;
}

const slotAccess = new WeakMap<Bm25Index, Bm25Slots>();

/** The {@link Bm25Slots} of an index made by {@link createBm25Index} or {@link loadBm25Index}. */
export function bm25Slots(index: Bm25Index): Bm25Slots | undefined {
  return slotAccess.get(index);
}
