import type { Analyzer } from './analyzer.ts';

/**
 * Analysed texts as lists of small integer term ids, so "how many query terms does this
 * passage hold" is a pass over the passage's ids against marks set for the query, instead of
 * string-set lookups.
 */
export interface TermIdCache {
  /**
   * Sorted distinct term ids of `text`, analysed once and kept while the text is among the
   * `maxTexts` most recently used. Compare the list before the next `idsOf` or `markQuery`:
   * ids of an evicted text are reissued.
   */
  idsOf(text: string): number[];
  /** Marks `terms` as the current query (replacing the previous query's marks). */
  markQuery(terms: Iterable<string>): void;
  /** How many distinct terms of the current query `text` holds. */
  countQueryTerms(text: string): number;
  /** Distinct terms held now: those of the cached texts and of the current query. */
  readonly termCount: number;
}

/** Bounds of {@link createTermIdCache}. */
export interface TermIdCacheOptions {
  /** Texts kept, least recently used out first; default 4096. */
  maxTexts?: number;
}

/**
 * Creates a {@link TermIdCache} over `analyzer`. Every term id is reference-counted by the
 * cached texts and the current query that hold it; evicting a text frees the ids no one else
 * holds for reuse. The dictionary is therefore as large as what is cached — no global bound
 * to overflow, and no clear-all that would make every later query analyse its passages again.
 */
export function createTermIdCache(analyzer: Analyzer, options: TermIdCacheOptions = {}): TermIdCache {
  const maxTexts = Math.max(1, options.maxTexts ?? 4096);
  const dictionary = new Map<string, number>();
  const termOfId: Array<string | undefined> = [];
  const freeIds: number[] = [];
  // refs[id]: cached texts + current query holding the id; marks[id] === stamp ⇔ query term.
  let refs = new Int32Array(256);
  let marks = new Int32Array(256);
  let stamp = 0;
  let queryIds: number[] = [];
  // Keyed by the text itself: V8 keeps a string's hash, so a recurring passage is found fast.
  // Map order is recency order: a hit moves its text to the end.
  const texts = new Map<string, number[]>();

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
    marks[id] = 0;
    return id;
  };
  const hold = (ids: readonly number[]): void => {
    for (const id of ids) refs[id] = (refs[id] as number) + 1;
  };
  const release = (ids: readonly number[]): void => {
    for (const id of ids) {
      const left = (refs[id] as number) - 1;
      refs[id] = left;
      if (left > 0) continue;
      dictionary.delete(termOfId[id] as string);
      termOfId[id] = undefined;
      freeIds.push(id);
    }
  };
  const intern = (terms: Iterable<string>): number[] => {
    const ids: number[] = [];
    for (const term of terms) ids.push(idOf(term));
    ids.sort((left, right) => left - right);
    let distinct = 0;
    for (let index = 0; index < ids.length; index++) {
      if (index === 0 || ids[index] !== ids[index - 1]) ids[distinct++] = ids[index] as number;
    }
    ids.length = distinct;
    return ids;
  };
  const idsOf = (text: string): number[] => {
    let ids = texts.get(text);
    if (ids !== undefined) {
      texts.delete(text);
      texts.set(text, ids);
      return ids;
    }
    ids = intern(analyzer.analyze(text));
    hold(ids);
    texts.set(text, ids);
    if (texts.size > maxTexts) {
      const oldest = texts.keys().next().value as string;
      release(texts.get(oldest) as number[]);
      texts.delete(oldest);
    }
    return ids;
  };
  return {
    idsOf,
    markQuery(terms) {
      if (stamp === 0x7fffffff) {
        marks.fill(0);
        stamp = 0;
      }
      stamp++;
      const ids = intern(terms);
      // Hold the new query's ids before releasing the old ones, so shared terms keep their id.
      hold(ids);
      release(queryIds);
      queryIds = ids;
      for (const id of ids) marks[id] = stamp;
    },
    countQueryTerms(text) {
      const ids = idsOf(text);
      let count = 0;
      for (let index = 0; index < ids.length; index++) {
        if (marks[ids[index] as number] === stamp) count++;
      }
      return count;
    },
    get termCount() {
      return dictionary.size;
    },
  };
}
