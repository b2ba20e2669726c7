import { CtxloomError, type Message, messageText } from '../core/index.ts';
import { normalizeText } from './normalize-text.ts';
import { stemEnglish } from './stem-english.ts';
import { DEFAULT_STOPWORDS } from './stopwords.ts';

/** Options of {@link rewriteQuery}. */
export interface RewriteQueryOptions {
  query: string;
  /** The conversation so far, oldest first (messages or plain strings). */
  messages: readonly (Message | string)[];
  /** How many of the latest messages are read. Default 5, integer ≥ 0. */
  recentMessages?: number;
  /** How many words are appended at most. Default 6, integer ≥ 0. */
  topK?: number;
  /** Words never appended (compared after NFKC + lowercase). Default en + zh stopwords-iso. */
  stopwords?: ReadonlySet<string>;
}

/** Result of {@link rewriteQuery}. */
export interface RewrittenQuery {
  /** `query [w1 w2 …]`, or the query unchanged when nothing was added. */
  query: string;
  original: string;
  /** The appended words in their surface form, most frequent first. */
  addedWords: string[];
}

const segmenter = new Intl.Segmenter('zh', { granularity: 'word' });
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
const HAS_LETTER = /\p{L}/u;

/**
 * Seed 001's QueryRewriter: pure text processing, no model call. Counts the words
 * (`Intl.Segmenter` word segments, per line) of the last `recentMessages` messages, drops
 * stopwords, words without a letter, one-letter Latin words and words already in the query
 * (same normalised form or English stem, or — for CJK — contained in the query), and appends
 * the `topK` most frequent (English words counted by stem, shown as first seen; ties: first seen) as `query [w1 w2 …]`.
 * @example
 * rewriteQuery({ query: '认证方案', messages: ['OAuth2 的安全 token', '用 OAuth2 换 token，注意安全'] }).query
 * // '认证方案 [OAuth2 token 安全]'
 */
export function rewriteQuery(options: RewriteQueryOptions): RewrittenQuery {
  const recentMessages = options.recentMessages ?? 5;
  const topK = options.topK ?? 6;
  for (const [name, value] of [
    ['recentMessages', recentMessages],
    ['topK', topK],
  ] as const) {
    if (!Number.isInteger(value) || value < 0) {
      throw new CtxloomError({
        code: 'invalid-argument',
        message: `${name} must be an integer ≥ 0`,
        path: name,
      });
    }
  }
  const stopwords = options.stopwords ?? DEFAULT_STOPWORDS;
  const original = options.query;
  const normalizedQuery = normalizeText(original);
  const queryKeys = new Set<string>();
  for (const word of words(original)) {
    const key = normalizeText(word);
    queryKeys.add(key);
    queryKeys.add(stemEnglish(key));
  }

  const counts = new Map<string, { surface: string; count: number; first: number }>();
  const recent = recentMessages === 0 ? [] : options.messages.slice(-recentMessages);
  let seen = 0;
  for (const message of recent) {
    const text = typeof message === 'string' ? message : messageText(message);
    for (const word of analyseMessage(text)) {
      const key = word.key;
      if (!word.letter || stopwords.has(key)) continue;
      if (!word.cjk && key.length < 2) continue;
      if (queryKeys.has(key) || queryKeys.has(word.stem) || (word.cjk && normalizedQuery.includes(key)))
        continue;
      const countKey = word.cjk ? key : word.stem;
      const entry = counts.get(countKey);
      if (entry === undefined) counts.set(countKey, { surface: word.surface, count: 1, first: seen++ });
      else entry.count++;
    }
  }
  const addedWords = [...counts.values()]
    .sort((left, right) => right.count - left.count || left.first - right.first)
    .slice(0, topK)
    .map((entry) => entry.surface);
  return {
    query: addedWords.length === 0 ? original : `${original} [${addedWords.join(' ')}]`,
    original,
    addedWords,
  };
}

/** A history word with what the rewriter checks, independent of the query and options. */
interface AnalysedWord {
  surface: string;
  /** NFKC + lowercase. */
  key: string;
  /** `stemEnglish(key)`. */
  stem: string;
  cjk: boolean;
  letter: boolean;
}

// Segmenting dominates rewriting, and consecutive turns share all but one of their recent
// messages: each message's words are kept (by text; bounded, oldest out first; very long
// texts are not kept).
const analysedMessages = new Map<string, readonly AnalysedWord[]>();
const MAX_KEPT_MESSAGES = 256;
const MAX_KEPT_LENGTH = 65_536;

function analyseMessage(text: string): readonly AnalysedWord[] {
  const kept = analysedMessages.get(text);
  if (kept !== undefined) return kept;
  const analysed: AnalysedWord[] = [];
  for (const surface of words(text)) {
    const key = normalizeText(surface);
    analysed.push({ surface, key, stem: stemEnglish(key), cjk: CJK.test(key), letter: HAS_LETTER.test(key) });
  }
  if (text.length <= MAX_KEPT_LENGTH) {
    if (analysedMessages.size >= MAX_KEPT_MESSAGES)
      analysedMessages.delete(analysedMessages.keys().next().value as string);
    analysedMessages.set(text, analysed);
  }
  return analysed;
}

function* words(text: string): Generator<string> {
  for (const line of text.split(/\n+/)) {
    // Intl.Segmenter is super-linear on very long strings; long lines are read in slices.
    for (let start = 0; start < line.length; start += 2048) {
      for (const segment of segmenter.segment(line.slice(start, start + 2048))) {
        if (segment.isWordLike === true) yield segment.segment;
      }
    }
  }
}
