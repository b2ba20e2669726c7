import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeText } from './normalize-text.ts';
import { rewriteQuery } from './query-rewriter.ts';
import { stemEnglish } from './stem-english.ts';
import { DEFAULT_STOPWORDS } from './stopwords.ts';

const segmenter = new Intl.Segmenter('zh', { granularity: 'word' });
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;

// The rewriter's definition, analysing every message afresh (no memory).
function reference(query: string, messages: string[], recentMessages = 5, topK = 6): string[] {
  const words = (text: string) =>
    text
      .split(/\n+/)
      .flatMap((line) => [...segmenter.segment(line)].filter((segment) => segment.isWordLike === true))
      .map((segment) => segment.segment);
  const normalizedQuery = normalizeText(query);
  const queryKeys = new Set(
    words(query).flatMap((word) => [normalizeText(word), stemEnglish(normalizeText(word))]),
  );
  const counts = new Map<string, { surface: string; count: number; first: number }>();
  let seen = 0;
  for (const text of recentMessages === 0 ? [] : messages.slice(-recentMessages)) {
    for (const word of words(text)) {
      const key = normalizeText(word);
      if (!/\p{L}/u.test(key) || DEFAULT_STOPWORDS.has(key)) continue;
      const cjk = CJK.test(key);
      if (!cjk && key.length < 2) continue;
      if (queryKeys.has(key) || queryKeys.has(stemEnglish(key)) || (cjk && normalizedQuery.includes(key)))
        continue;
      const countKey = cjk ? key : stemEnglish(key);
      const entry = counts.get(countKey);
      if (entry === undefined) counts.set(countKey, { surface: word, count: 1, first: seen++ });
      else entry.count++;
    }
  }
  return [...counts.values()]
    .sort((left, right) => right.count - left.count || left.first - right.first)
    .slice(0, topK)
    .map((entry) => entry.surface);
}

const word = fc.constantFrom(
  'Token',
  'tokens',
  'the',
  'deploy',
  'deploying',
  'OAuth2',
  '认证',
  '安全',
  'ＡＰＩ',
  'a',
  '42',
  '\n',
);
const text = fc.array(word, { maxLength: 12 }).map((parts) => parts.join(' '));

describe('rewriteQuery (property)', () => {
  it('adds the words of the definition, whether a message is read for the first time or again', () => {
    fc.assert(
      fc.property(
        text,
        fc.array(text, { maxLength: 8 }),
        fc.integer({ min: 0, max: 6 }),
        fc.integer({ min: 0, max: 6 }),
        (query, messages, recentMessages, topK) => {
          const expected = reference(query, messages, recentMessages, topK);
          // Twice: the second call reads every message from memory.
          for (let pass = 0; pass < 2; pass++) {
            expect(rewriteQuery({ query, messages, recentMessages, topK }).addedWords).toEqual(expected);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
