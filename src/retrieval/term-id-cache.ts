import type { Analyzer } from './analyzer.ts';

/**
 * Analysed texts as lists of small integer term ids, so "how many query terms does this
 * passage hold" is a pass over the passage's ids against marks set for the query, instead of
 * string-set lookups.
 */
export interface TermIdCache {
  /**
   * Sorted distinct term ids of `text`, analysed once and kept while the text is among the
   * `maxTexts` cached ones. Compare the list before the next `idsOf` or `markQuery`: ids of an
   * evicted text are reissued.
   */
  idsOf(text: string): number[];
  /**
   * Marks `terms` as the current query (replacing the previous query's marks): a set, or a
   * list of distinct terms. The cache reads it until the next `markQuery`: do not change it.
   */
  markQuery(terms: ReadonlySet<string> | readonly string[]): void;
  /** How many distinct terms of the current query `text` holds. */
  countQueryTerms(text: string): number;
  /**
   * For each passage, `countQueryTerms(content) / size` into `out[passage × stride + column]`
   * (the query-overlap signal's scores of a candidate list, in one call).
   */
  shareOfQueryTerms(
    passages: readonly { content: string }[],
    size: number,
    out: Float64Array,
    column: number,
    stride: number,
  ): void;
  /** Distinct terms held now: those of the cached texts. */
  readonly termCount: number;
}

// How many of the sorted distinct `ids` carry the query's mark. Ids ascend: past the highest
// marked one, or once every marked id is found, none is left.
function countMarked(
  ids: readonly number[],
  marks: Int32Array,
  stamp: number,
  marked: number,
  highestMarked: number,
): number {
  let count = 0;
  for (let index = 0; index < ids.length && count < marked; index++) {
    const id = ids[index] as number;
    if (id > highestMarked) break;
    if (marks[id] === stamp) count++;
  }
  return count;
}

/** Bounds of {@link createTermIdCache}. */
export interface TermIdCacheOptions {
  /** Texts kept; default 4096. Past it, the least recently used ones go (see below). */
  maxTexts?: number;
}

// A cached text: its ids, when it was last used and when it took its place in the map's order.
class CachedText {
  readonly ids: number[];
  used: number;
  placed: number;
  constructor(ids: number[], now: number) {
    this.ids = ids;
    this.used = now;
    this.placed = now;
  }
}

/**
 * Creates a {@link TermIdCache} over `analyzer`. Every term id is reference-counted by the
 * cached texts that hold it; evicting a text frees the ids no other text holds for reuse. The
 * dictionary is therefore as large as what is cached — no global bound to overflow, and no
 * clear-all that would make every later query analyse its passages again.
 *
 * A query's terms take no ids: a term no cached text holds cannot be counted, and a text
 * analysed while the query is marked marks its new ids that are query terms. A hit only
 * stamps its text as used (no reordering); eviction gives a used text a second chance
 * (CLOCK): it goes to the back of the order, and the first text unused since it was placed
 * there is evicted — the least recently used one, up to the order of those second chances.
 */
export function createTermIdCache(analyzer: Analyzer, options: TermIdCacheOptions = {}): TermIdCache {
  const maxTexts = Math.max(1, options.maxTexts ?? 4096);
  const dictionary = new Map<string, number>();
  const termOfId: Array<string | undefined> = [];
  const freeIds: number[] = [];
  // refs[id]: cached texts holding the id; marks[id] === stamp ⇔ a term of the current query.
  let refs = new Int32Array(256);
  let marks = new Int32Array(256);
  let stamp = 0;
  // Ids marked for the current query and the highest of them: a passage's sorted ids are
  // counted until both tell that no further id can be a query term.
  let marked = 0;
  let highestMarked = -1;
  let queryTerms: ReadonlySet<string> | readonly string[] = [];
  // A long list of query terms as a set, made when a text analysed during the query asks.
  let querySet: ReadonlySet<string> | undefined;
  const isQueryTerm = (term: string): boolean => {
    if (!Array.isArray(queryTerms)) return (queryTerms as ReadonlySet<string>).has(term);
    if (queryTerms.length <= 16) return queryTerms.includes(term);
    querySet ??= new Set(queryTerms);
    return querySet.has(term);
  };
  let clock = 0;
  // Keyed by the text itself: V8 keeps a string's hash, so a recurring passage is found fast.
  const texts = new Map<string, CachedText>();

  const idOf = (term: string): number => {
    let id = dictionary.get(term);
    if (id !== undefined) return id;
    id = freeIds.pop() ?? dictionary.size;
    if (id >= refs.length) {
      const capacity = Math.max(id + 1, refs.length * 2);
      const grownRefs = new Int32Array(capacity);
      grownRefs.set(refs);
      refs = grownRefs;
      const grownMarks = new Int32Array(capacity);
      grownMarks.set(marks);
      marks = grownMarks;
    }
    dictionary.set(term, id);
    termOfId[id] = term;
    if (isQueryTerm(term)) {
      marks[id] = stamp;
      marked++;
      if (id > highestMarked) highestMarked = id;
    } else marks[id] = 0;
    return id;
  };
  const release = (ids: readonly number[]): void => {
    for (const id of ids) {
      const left = (refs[id] as number) - 1;
      refs[id] = left;
      if (left > 0) continue;
      dictionary.delete(termOfId[id] as string);
      termOfId[id] = undefined;
      // A reissued id must not inherit the mark of the term it held.
      if (marks[id] === stamp) marked--;
      marks[id] = 0;
      freeIds.push(id);
    }
  };
  const evictOne = (): void => {
    for (const [text, entry] of texts) {
      texts.delete(text);
      if (entry.used > entry.placed) {
        entry.placed = entry.used;
        texts.set(text, entry);
        continue;
      }
      release(entry.ids);
      return;
    }
  };
  // A cached text's ids (stamped as used): the path of nearly every passage, kept small.
  const idsOf = (text: string): number[] => {
    const cached = texts.get(text);
    if (cached === undefined) return addText(text);
    cached.used = ++clock;
    return cached.ids;
  };
  const addText = (text: string): number[] => {
    const ids: number[] = [];
    for (const term of analyzer.analyze(text)) ids.push(idOf(term));
    ids.sort((left, right) => left - right);
    let distinct = 0;
    for (let index = 0; index < ids.length; index++) {
      if (index === 0 || ids[index] !== ids[index - 1]) ids[distinct++] = ids[index] as number;
    }
    ids.length = distinct;
    for (const id of ids) refs[id] = (refs[id] as number) + 1;
    // Evict before caching: the new text is not a candidate, and its ids are held already.
    if (texts.size >= maxTexts) evictOne();
    texts.set(text, new CachedText(ids, ++clock));
    return ids;
  };
  // Marks a query term that a cached text holds.
  const mark = (term: string): void => {
    const id = dictionary.get(term);
    if (id === undefined) return;
    marks[id] = stamp;
    marked++;
    if (id > highestMarked) highestMarked = id;
  };
  return {
    idsOf,
    markQuery(terms) {
      if (stamp === 0x7fffffff) {
        marks.fill(0);
        stamp = 0;
      }
      stamp++;
      queryTerms = terms;
      querySet = undefined;
      marked = 0;
      highestMarked = -1;
      if (Array.isArray(terms)) {
        for (let index = 0; index < terms.length; index++) mark(terms[index] as string);
      } else for (const term of terms) mark(term);
    },
    countQueryTerms(text) {
      return countMarked(idsOf(text), marks, stamp, marked, highestMarked);
    },
    shareOfQueryTerms(passages, size, out, column, stride) {
      for (let at = 0; at < passages.length; at++) {
        const ids = idsOf((passages[at] as { content: string }).content);
        out[at * stride + column] = countMarked(ids, marks, stamp, marked, highestMarked) / size;
      }
    },
    get termCount() {
      return dictionary.size;
    },
  };
}
