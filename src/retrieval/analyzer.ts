import { CtxloomError } from '../core/index.ts';
import { normalizeText } from './normalize-text.ts';
import { stemEnglish } from './stem-english.ts';
import { DEFAULT_STOPWORDS } from './stopwords.ts';

/**
 * How runs of Chinese/Japanese characters become terms.
 * - `ngram`: every character (minus single-character stopwords) plus every adjacent pair.
 *   Needs no dictionary, never misses a word boundary; the default (see docs/retrieval.md for
 *   the measurement that chose it).
 * - `segmenter`: words from `Intl.Segmenter` (ICU's dictionary), minus stopwords.
 * - `segmenter+ngram`: both term sets.
 */
export type CjkMode = 'ngram' | 'segmenter' | 'segmenter+ngram';

/** Turns text into index terms; the same analyzer must be used for documents and queries. */
export interface Analyzer {
  /** Describes the configuration; saved with an index so a mismatch can be detected. */
  readonly name: string;
  /** Terms in text order, duplicates kept (term frequency matters). Never throws. */
  analyze(text: string): string[];
}

/** Options of {@link createAnalyzer}. */
export interface AnalyzerOptions {
  /** Terms dropped after normalisation; default {@link DEFAULT_STOPWORDS} (en + zh, stopwords-iso). */
  stopwords?: ReadonlySet<string>;
  /**
   * Stemmer for Latin-script words, or `false`; default {@link stemEnglish}. Must be pure: the
   * analyzer remembers each word's stem.
   */
  stem?: ((word: string) => string) | false;
  /** CJK handling; default `ngram`. */
  cjk?: CjkMode;
  /** Longer Latin tokens are cut to this many UTF-16 units (blobs, hashes). Default 64, ≥ 1. */
  maxTermLength?: number;
}

const CJK = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}';
// Scripts written without spaces between words, segmented with ICU's dictionaries.
const UNSPACED = '\\p{Script=Thai}\\p{Script=Lao}\\p{Script=Khmer}\\p{Script=Myanmar}';
const CJK_CHAR = `[${CJK}]`;
const UNSPACED_CHAR = `[[${UNSPACED}\\p{M}]--[\\p{P}]]`;
const WORD_CHAR = `[[\\p{L}\\p{N}\\p{M}]--[${CJK}${UNSPACED}]]`;
// What follows an apostrophe inside a word.
const SUFFIX_CHAR = '[\\p{L}\\p{N}]';
/**
 * Most repetitions of a run in one regular expression match (code points, or apostrophe
 * suffixes of a word). A `+` or `*` over classes with astral members (Han, Cyrillic words, …)
 * keeps a backtracking entry per character: a run of ~3M overflowed the stack. A longer run
 * is matched in pieces of this size and joined again ({@link extendRun}), so its terms are the
 * unbounded pattern's. Internal; exported for tests.
 */
export const RUN_PIECE = 4096;
const PIECE = `{1,${RUN_PIECE}}`;
// `v` flag for the set difference; built with the constructor because the compile target
// predates the flag. Each match is a CJK run (group 1), an unspaced-script run (group 2) or
// a word — `CJK+ | UNSPACED+ | WORD+(?:['’]SUFFIX+)*` with each repetition bounded.
const TOKEN_SOURCE = `(${CJK_CHAR}${PIECE})|(${UNSPACED_CHAR}${PIECE})|${WORD_CHAR}${PIECE}(?:['’]${SUFFIX_CHAR}${PIECE}){0,${RUN_PIECE}}`;
// Sticky pieces that continue a run cut at the bound.
const CJK_PIECE = new RegExp(`${CJK_CHAR}${PIECE}`, 'vy');
const UNSPACED_PIECE = new RegExp(`${UNSPACED_CHAR}${PIECE}`, 'vy');
const WORD_PIECE = new RegExp(`${WORD_CHAR}${PIECE}`, 'vy');
const SUFFIX_PIECE = new RegExp(`${SUFFIX_CHAR}${PIECE}`, 'vy');
const APOSTROPHE_SUFFIX_PIECE = new RegExp(`['’]${SUFFIX_CHAR}${PIECE}`, 'vy');
// Distinct words whose terms an analyzer remembers (a few MB at most).
const WORD_CACHE_SIZE = 1 << 16;
// Intl.Segmenter is super-linear on very long inputs; CJK runs are cut to this many units.
const SEGMENT_CHUNK = 256;

/**
 * Builds the default analyzer: NFKC + lowercase ({@link normalizeText}), Latin/Cyrillic/…
 * words split on non-letters, English stopwords removed and light stemming, CJK runs turned
 * into character unigrams + bigrams (or `Intl.Segmenter` words, see {@link CjkMode}), and
 * Thai/Lao/Khmer/Myanmar runs (written without spaces) into `Intl.Segmenter` words. Mixed
 * scripts need no language option.
 *
 * Pure ASCII text takes a shorter path with the same terms (NFKC leaves ASCII unchanged and
 * only the word pattern can match it). The last text analysed is remembered, so the query
 * analysed by recall and again by the reranker costs one analysis; `createAnalyzer()` with no
 * options returns one shared analyzer so that both see the same memory.
 * @example
 * createAnalyzer().analyze('Running OAuth2 认证方案') // ['run', 'oauth2', '认', '认证', '证', '证方', '方', '方案', '案']
 */
export function createAnalyzer(options: AnalyzerOptions = {}): Analyzer {
  const defaults =
    options.stopwords === undefined &&
    options.stem === undefined &&
    options.cjk === undefined &&
    options.maxTermLength === undefined;
  if (defaults) {
    defaultAnalyzer ??= buildAnalyzer(options);
    return defaultAnalyzer;
  }
  return buildAnalyzer(options);
}

let defaultAnalyzer: Analyzer | undefined;

function buildAnalyzer(options: AnalyzerOptions): Analyzer {
  const stopwords = options.stopwords ?? DEFAULT_STOPWORDS;
  const stem = options.stem === undefined ? stemEnglish : options.stem;
  const cjk = options.cjk ?? 'ngram';
  const maxTermLength = options.maxTermLength ?? 64;
  if (!Number.isInteger(maxTermLength) || maxTermLength < 1) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: 'maxTermLength must be an integer ≥ 1',
      path: 'maxTermLength',
    });
  }
  const segmenter = cjk === 'ngram' ? undefined : new Intl.Segmenter('zh', { granularity: 'word' });
  const tokenPattern = new RegExp(TOKEN_SOURCE, 'gv');
  let unspacedSegmenter: Intl.Segmenter | undefined;
  // Thai, Lao, Khmer and Myanmar words through Intl.Segmenter (created on first use).
  const addUnspaced = (run: string, terms: string[]): void => {
    unspacedSegmenter ??= new Intl.Segmenter('th', { granularity: 'word' });
    for (let start = 0; start < run.length; start += SEGMENT_CHUNK) {
      for (const segment of unspacedSegmenter.segment(run.slice(start, start + SEGMENT_CHUNK))) {
        if (segment.isWordLike === true && !stopwords.has(segment.segment)) terms.push(segment.segment);
      }
    }
  };

  const addCjk = (run: string, terms: string[]): void => {
    if (segmenter !== undefined) {
      for (let start = 0; start < run.length; start += SEGMENT_CHUNK) {
        for (const segment of segmenter.segment(run.slice(start, start + SEGMENT_CHUNK))) {
          if (segment.isWordLike === true && !stopwords.has(segment.segment)) terms.push(segment.segment);
        }
      }
    }
    if (cjk === 'segmenter') return;
    const chars = Array.from(run);
    for (let index = 0; index < chars.length; index++) {
      const char = chars[index] as string;
      if (!stopwords.has(char)) terms.push(char);
      const next = chars[index + 1];
      if (next !== undefined) terms.push(char + next);
    }
  };

  // Word → its term ('' for a stopword or an empty stem): one lookup instead of the stopword
  // set and the stemmer's regular expressions, which cost more than the rest of analysing an
  // English query. Cleared whole when full: a word seen again is then stemmed once more.
  const words = new Map<string, string>();
  const addWord = (raw: string, terms: string[]): void => {
    const word = raw.length > maxTermLength ? raw.slice(0, maxTermLength) : raw;
    let term = words.get(word);
    if (term === undefined) {
      term = stopwords.has(word) ? '' : stem === false ? word : stem(word);
      if (words.size >= WORD_CACHE_SIZE) words.clear();
      words.set(word, term);
    }
    if (term.length > 0) terms.push(term);
  };

  const analyzeUnicode = (text: string): string[] => {
    const terms: string[] = [];
    const normalized = normalizeText(text);
    tokenPattern.lastIndex = 0;
    for (;;) {
      const match = tokenPattern.exec(normalized);
      if (match === null) break;
      let token = match[0];
      // Only a match at least RUN_PIECE units long can have been cut at the bound.
      if (token.length >= RUN_PIECE) {
        const kind = match[1] !== undefined ? 'cjk' : match[2] !== undefined ? 'unspaced' : 'word';
        const end = extendRun(normalized, match.index, tokenPattern.lastIndex, kind);
        token = normalized.slice(match.index, end);
        tokenPattern.lastIndex = end;
      }
      if (match[1] !== undefined) addCjk(token, terms);
      else if (match[2] !== undefined) addUnspaced(token, terms);
      else addWord(token, terms);
    }
    return terms;
  };

  // On lowercase ASCII the token pattern reduces to its word branch over [a-z0-9]:
  // `[a-z0-9]+(?:'[a-z0-9]+)*`, scanned by hand (a regular expression built a match array per
  // word, a third of analysing a short query).
  const analyzeAscii = (text: string): string[] => {
    const terms: string[] = [];
    const lower = text.toLowerCase();
    const length = lower.length;
    let index = 0;
    while (index < length) {
      if (!isAsciiWordCode(lower.charCodeAt(index))) {
        index++;
        continue;
      }
      const start = index;
      for (;;) {
        index++;
        while (index < length && isAsciiWordCode(lower.charCodeAt(index))) index++;
        // An apostrophe joins the next run only when a word character follows it.
        if (
          index + 1 < length &&
          lower.charCodeAt(index) === 0x27 &&
          isAsciiWordCode(lower.charCodeAt(index + 1))
        )
          index++;
        else break;
      }
      addAsciiWord(lower, start, index, terms);
    }
    return terms;
  };

  // The ASCII path's word → term table, found by the word's characters in the lowercased text —
  // a word seen before costs no string of its own nor a Map's hashing of one. Open addressing by
  // a hash of the characters; cleared whole when half full (a word seen again is then stemmed
  // once more). Made on first use. A slot is two numbers, the hash and the entry (+1; 0 is
  // empty), and the entries' characters and terms are kept in insertion order: a probe reads one
  // cache line of the table, then compact lists. (Three parallel 32,768-slot lists — the words,
  // the terms and the hashes, 640 kB — made each probe three cache misses and a word's string a
  // fourth; the lists outgrew a 512 kB L2 cache.)
  let table = new Int32Array(0);
  let entryCount = 0;
  // Entry e's characters are chars[entryStarts[e] .. entryStarts[e + 1]); its term is
  // undefined for a stopword or an empty stem.
  let entryStarts = new Int32Array(0);
  const entryTerms: Array<string | undefined> = [];
  let chars = new Uint8Array(0);
  const addAsciiWord = (lower: string, start: number, end: number, terms: string[]): void => {
    let hash = 0;
    for (let at = start; at < end; at++) hash = (Math.imul(hash, 31) + lower.charCodeAt(at)) | 0;
    const length = end - start;
    const home = (hash ^ (hash >>> 15)) & ASCII_TABLE_MASK;
    if (table.length === 0) {
      table = new Int32Array(2 * ASCII_TABLE_SIZE);
      entryStarts = new Int32Array((ASCII_TABLE_SIZE >> 1) + 1);
      chars = new Uint8Array(1 << 16);
    }
    let slot = home;
    for (;;) {
      const entry = table[2 * slot + 1] as number;
      if (entry === 0) break;
      if (table[2 * slot] === hash) {
        const from = entryStarts[entry - 1] as number;
        if (
          (entryStarts[entry] as number) - from === length &&
          sameCodes(chars, from, lower, start, length)
        ) {
          const term = entryTerms[entry - 1];
          if (term !== undefined) terms.push(term);
          return;
        }
      }
      slot = (slot + 1) & ASCII_TABLE_MASK;
    }
    const raw = lower.slice(start, end);
    const word = raw.length > maxTermLength ? raw.slice(0, maxTermLength) : raw;
    const term = stopwords.has(word) ? '' : stem === false ? word : stem(word);
    if (entryCount >= ASCII_TABLE_SIZE >> 1) {
      table.fill(0);
      entryCount = 0;
      slot = home;
    }
    const from = entryStarts[entryCount] as number;
    if (from + length > chars.length) {
      const grown = new Uint8Array(Math.max(2 * chars.length, from + length));
      grown.set(chars.subarray(0, from));
      chars = grown;
    }
    for (let at = 0; at < length; at++) chars[from + at] = lower.charCodeAt(start + at);
    entryTerms[entryCount] = term.length > 0 ? term : undefined;
    entryCount++;
    entryStarts[entryCount] = from + length;
    table[2 * slot] = hash;
    table[2 * slot + 1] = entryCount;
    if (term.length > 0) terms.push(term);
  };

  let lastText: string | undefined;
  let lastTerms: string[] = [];
  const analyzer: Analyzer = {
    name: `ctxloom-analyzer/v2 cjk=${cjk} stem=${stem === false ? 'none' : stem === stemEnglish ? 'porter' : 'custom'} stopwords=${stopwords.size}`,
    analyze(text) {
      if (text !== lastText) {
        lastTerms = isAscii(text) ? analyzeAscii(text) : analyzeUnicode(text);
        lastText = text;
      }
      // A copy: callers own the array they get.
      return lastTerms.slice();
    },
  };
  madeHere.add(analyzer);
  return analyzer;
}

// Analyzers made by createAnalyzer: the same text always gives them the same terms.
const madeHere = new WeakSet<Analyzer>();
// The last distinct terms given out for an analyzer made here, and what they are of.
const lastOf: { analyzer: Analyzer | undefined; text: string; terms: readonly string[] } = {
  analyzer: undefined,
  text: '',
  terms: [],
};

/**
 * `distinctTerms(analyzer.analyze(text))`, shared and read-only: for an analyzer made by
 * {@link createAnalyzer}, the last text's list is given again to the next caller asking for
 * the same text (a query is analysed for BM25 and again for the reranker's overlap); any other
 * analyzer is asked each time. Internal.
 */
export function distinctTermsOf(analyzer: Analyzer, text: string): readonly string[] {
  if (lastOf.analyzer === analyzer && lastOf.text === text) return lastOf.terms;
  const terms = distinctTerms(analyzer.analyze(text));
  if (madeHere.has(analyzer)) {
    lastOf.analyzer = analyzer;
    lastOf.text = text;
    lastOf.terms = terms;
  }
  return terms;
}

/**
 * Where the run matched at `start..end` of `text` ends when its repetitions are not bounded:
 * more pieces of the same run, and for a word more of its last part, then more apostrophe
 * suffixes. Greedy like the unbounded pattern, which never needed to backtrack into a run.
 */
function extendRun(text: string, start: number, end: number, kind: 'cjk' | 'unspaced' | 'word'): number {
  const more = (piece: RegExp, from: number): number => {
    let at = from;
    for (;;) {
      piece.lastIndex = at;
      if (!piece.test(text)) return at;
      at = piece.lastIndex;
    }
  };
  if (kind === 'cjk') return more(CJK_PIECE, end);
  if (kind === 'unspaced') return more(UNSPACED_PIECE, end);
  // A word's own characters hold no apostrophe: with one, the match ended inside a suffix.
  const matched = text.slice(start, end);
  let at = matched.includes("'") || matched.includes('’') ? more(SUFFIX_PIECE, end) : more(WORD_PIECE, end);
  for (;;) {
    APOSTROPHE_SUFFIX_PIECE.lastIndex = at;
    if (!APOSTROPHE_SUFFIX_PIECE.test(text)) return at;
    at = more(SUFFIX_PIECE, APOSTROPHE_SUFFIX_PIECE.lastIndex);
  }
}

// Whether `codes` from `from` on hold `text`'s `length` characters from `start` on.
function sameCodes(codes: Uint8Array, from: number, text: string, start: number, length: number): boolean {
  for (let at = 0; at < length; at++) if (codes[from + at] !== text.charCodeAt(start + at)) return false;
  return true;
}

// Slots of an analyzer's ASCII word table (a power of two; at most half are filled).
const ASCII_TABLE_SIZE = 1 << 15;
const ASCII_TABLE_MASK = ASCII_TABLE_SIZE - 1;

// [a-z0-9]
function isAsciiWordCode(code: number): boolean {
  return (code >= 0x61 && code <= 0x7a) || (code >= 0x30 && code <= 0x39);
}

function isAscii(text: string): boolean {
  for (let index = 0; index < text.length; index++) if (text.charCodeAt(index) > 0x7f) return false;
  return true;
}

/**
 * `terms` with repeats removed in place, in order of first occurrence (the order of a `Set` of
 * them); a scan per term while short. Returns `terms` (or a new list when long).
 */
export function distinctTerms(terms: string[]): string[] {
  if (terms.length > 32) return [...new Set(terms)];
  let distinct = 0;
  for (let index = 0; index < terms.length; index++) {
    const term = terms[index] as string;
    let seen = 0;
    while (seen < distinct && terms[seen] !== term) seen++;
    if (seen === distinct) terms[distinct++] = term;
  }
  // Setting `length` is a runtime call even when it does not change.
  if (distinct < terms.length) terms.length = distinct;
  return terms;
}
