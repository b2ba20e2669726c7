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
  /** Sorted distinct ids of `terms` (distinct already), taking new ids as needed. */
  idsOf(terms: Iterable<string>): number[];
  /**
   * For each passage, how many of `terms` (the query's distinct terms) its `ids` hold, divided
   * by `size`, into `out[passage × stride + column]`.
   */
  shareOfQueryTerms(
    ids: readonly (readonly number[])[],
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
  return {
    analyzer,
    idsOf(terms) {
      const ids: number[] = [];
      for (const term of terms) {
        let id = dictionary.get(term);
        if (id === undefined) {
          id = dictionary.size;
          dictionary.set(term, id);
        }
        ids.push(id);
      }
      if (dictionary.size > marks.length) {
        const grown = new Int32Array(Math.max(dictionary.size, marks.length * 2));
        grown.set(marks);
        marks = grown;
      }
      return ids.sort((left, right) => left - right);
    },
    shareOfQueryTerms(ids, count, terms, size, out, column, stride) {
      if (stamp === 0x7fffffff) {
        marks.fill(0);
        stamp = 0;
      }
      stamp++;
      let highestMarked = -1;
      for (let index = 0; index < terms.length; index++) {
        const id = dictionary.get(terms[index] as string);
        if (id === undefined) continue;
        marks[id] = stamp;
        if (id > highestMarked) highestMarked = id;
      }
      for (let at = 0; at < count; at++) {
        const passage = ids[at] as readonly number[];
        const length = passage.length;
        // Ids ascend: past the highest marked one, none is left. A mark is counted without a
        // branch (whether an id is the query's is unpredictable; ~15–25 % faster).
        let found = 0;
        for (let index = 0; index < length; index++) {
          const id = passage[index] as number;
          if (id > highestMarked) break;
          found += marks[id] === stamp ? 1 : 0;
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
  /** Candidates noted: the first `count` entries of `contents` and `ids` are this recall's. */
  count: number;
  contents: string[];
  ids: (readonly number[])[];
}

// `count`, not the lists' `length`: setting an array's length is a runtime call. Entries past
// `count` are an earlier, longer recall's until overwritten.
const recalled: RecalledTerms = { list: undefined, space: undefined, count: 0, contents: [], ids: [] };

/** Starts the record of a recall into `list` (filled with {@link noteRecalled}). */
export function beginRecall(list: readonly RetrievalCandidate[], space: TermSpace): void {
  recalled.list = list;
  recalled.space = space;
  recalled.count = 0;
}

/** Notes the next candidate of the recall begun: its content and that content's term ids. */
export function noteRecalled(content: string, ids: readonly number[]): void {
  const at = recalled.count++;
  recalled.contents[at] = content;
  recalled.ids[at] = ids;
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
