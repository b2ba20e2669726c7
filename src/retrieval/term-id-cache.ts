import type { Analyzer } from './analyzer.ts';

/**
 * Analysed texts as lists of small integer term ids, so "how many query terms does this
 * passage hold" is a pass over the passage's ids against marks set for the query, instead of
 * string-set lookups.
 */
export interface TermIdCache {
  /** Sorted distinct term ids of `text`, analysed once and kept (bounded, oldest out first). */
  idsOf(text: string): number[];
  /** Sorted distinct ids of `terms`, giving new terms new ids. */
  intern(terms: Iterable<string>): number[];
  /** Marks `terms` as the current query (replacing the previous query's marks). */
  markQuery(terms: Iterable<string>): void;
  /** How many distinct terms of the current query `text` holds. */
  countQueryTerms(text: string): number;
  /**
   * Forgets every id once the dictionary outgrew its bound. Call only when no id list handed
   * out earlier is still compared (e.g. at the start of a rerank), since ids are reissued.
   */
  trim(): void;
}

/** Bounds of {@link createTermIdCache}. */
export interface TermIdCacheOptions {
  /** Texts kept, default 4096. */
  maxTexts?: number;
  /** Distinct terms before {@link TermIdCache.trim} starts over, default 65536. */
  maxTerms?: number;
}

/** Creates a {@link TermIdCache} over `analyzer`. */
export function createTermIdCache(analyzer: Analyzer, options: TermIdCacheOptions = {}): TermIdCache {
  const maxTexts = options.maxTexts ?? 4096;
  const maxTerms = options.maxTerms ?? 65_536;
  const dictionary = new Map<string, number>();
  // Keyed by the text itself: V8 keeps a string's hash, so a recurring passage is found fast.
  const texts = new Map<string, number[]>();
  const idOf = (term: string): number => {
    let id = dictionary.get(term);
    if (id === undefined) {
      id = dictionary.size;
      dictionary.set(term, id);
    }
    return id;
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
  // marks[id] === stamp ⇔ the term is in the current query; a new query takes a new stamp.
  let marks = new Int32Array(256);
  let stamp = 0;
  const idsOf = (text: string): number[] => {
    let ids = texts.get(text);
    if (ids === undefined) {
      ids = intern(analyzer.analyze(text));
      if (texts.size >= maxTexts) texts.delete(texts.keys().next().value as string);
      texts.set(text, ids);
    }
    return ids;
  };
  return {
    intern,
    idsOf,
    markQuery(terms) {
      if (stamp === 0x7fffffff) {
        marks.fill(0);
        stamp = 0;
      }
      stamp++;
      for (const term of terms) {
        const id = idOf(term);
        if (id >= marks.length) {
          const grown = new Int32Array(Math.max(id + 1, marks.length * 2));
          grown.set(marks);
          marks = grown;
        }
        marks[id] = stamp;
      }
    },
    countQueryTerms(text) {
      const ids = idsOf(text);
      let count = 0;
      // Ids past the marks were interned after the query was marked: not query terms.
      const limit = marks.length;
      for (let index = 0; index < ids.length; index++) {
        const id = ids[index] as number;
        if (id < limit && marks[id] === stamp) count++;
      }
      return count;
    },
    trim() {
      if (dictionary.size <= maxTerms) return;
      dictionary.clear();
      texts.clear();
      marks.fill(0);
    },
  };
}
