import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Analyzer, createAnalyzer } from './analyzer.ts';
import type { RetrievalCandidate } from './candidate.ts';
import { createQueryOverlapSignal } from './rerank-signals.ts';
import { createTermIdCache } from './term-id-cache.ts';

const analyzer = createAnalyzer();
const text = fc
  .array(fc.constantFrom('alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', '认证', 'alphas'), {
    maxLength: 12,
  })
  .map((parts) => parts.join(' '));

/** The real analyzer, counting how often it is asked to analyse a text. */
function countingAnalyzer(): Analyzer & { calls: number } {
  const counting = {
    name: analyzer.name,
    calls: 0,
    analyze(input: string) {
      counting.calls++;
      return analyzer.analyze(input);
    },
  };
  return counting;
}

// Consonant-only words of 5 letters: no stopword, untouched by the light stemmer.
const LETTERS = 'bcdfghjkmnpqrtvwxz';
function word(index: number): string {
  let out = '';
  for (let rest = index, place = 0; place < 5; place++, rest = Math.floor(rest / LETTERS.length))
    out += LETTERS[rest % LETTERS.length];
  return out;
}

describe('createTermIdCache', () => {
  it('counts the query terms a passage holds like string sets do, while texts are evicted and ids reused', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(text, fc.array(text, { maxLength: 5 })), { maxLength: 8 }),
        fc.integer({ min: 1, max: 4 }),
        (queries, maxTexts) => {
          const cache = createTermIdCache(analyzer, { maxTexts });
          for (const [query, passages] of queries) {
            const queryTerms = new Set(analyzer.analyze(query));
            cache.markQuery(queryTerms);
            for (const passage of passages) {
              const terms = new Set(analyzer.analyze(passage));
              const expected = [...queryTerms].filter((term) => terms.has(term)).length;
              expect(cache.countQueryTerms(passage)).toBe(expected);
            }
          }
        },
      ),
    );
  });

  it('marks a list of distinct query terms as it marks their set, short or long', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(text, fc.array(text, { maxLength: 5 })), { maxLength: 8 }),
        fc.integer({ min: 0, max: 40 }),
        (queries, padding) => {
          const bySet = createTermIdCache(analyzer, { maxTexts: 3 });
          const byList = createTermIdCache(analyzer, { maxTexts: 3 });
          for (const [query, passages] of queries) {
            // Padding terms no passage holds make some lists longer than a scan is used for.
            const terms = [...new Set(analyzer.analyze(query))];
            for (let index = 0; index < padding; index++) terms.push(word(index));
            bySet.markQuery(new Set(terms));
            byList.markQuery(terms);
            // Passages analysed while the query is marked mark their new ids too.
            for (const passage of passages)
              expect(byList.countQueryTerms(passage)).toBe(bySet.countQueryTerms(passage));
          }
        },
      ),
    );
  });

  it('returns sorted distinct ids and the same list for a repeated text', () => {
    const cache = createTermIdCache(analyzer);
    const ids = cache.idsOf('beta alpha beta gamma alpha');
    expect(ids).toHaveLength(3);
    expect([...ids].sort((left, right) => left - right)).toEqual(ids);
    expect(cache.idsOf('beta alpha beta gamma alpha')).toBe(ids);
  });

  it('holds only the terms of the cached texts, evicting the least recently used text', () => {
    const counting = countingAnalyzer();
    const cache = createTermIdCache(counting, { maxTexts: 2 });
    cache.markQuery(new Set(['bcdfg']));
    cache.idsOf('hjkmn pqrtv');
    cache.idsOf('wxzbc dfghj');
    cache.idsOf('hjkmn pqrtv'); // used again: now the most recent
    cache.idsOf('kmnpq rtvwx'); // evicts 'wxzbc dfghj'
    // The query's term is in no cached text: it takes no id.
    expect(cache.termCount).toBe(4);
    cache.idsOf('hjkmn pqrtv');
    expect(counting.calls).toBe(3);
  });
});

describe('query-overlap signal over a vocabulary larger than 65,536 terms', () => {
  it('analyses each recurring passage once: no clear-all when the dictionary grows', () => {
    // 240 passages × 400 own terms = 96,000 distinct terms, all cached (maxTexts 4096).
    const passages = Array.from({ length: 240 }, (_, passage) =>
      Array.from({ length: 400 }, (_, term) => word(passage * 400 + term)).join(' '),
    );
    const candidates = passages.map(
      (content, index): RetrievalCandidate =>
        ({ id: `p${index}`, content, origin: 'kb', vectorScore: 0 }) as RetrievalCandidate,
    );
    const counting = countingAnalyzer();
    const signal = createQueryOverlapSignal();
    for (let round = 0; round < 3; round++) {
      for (let start = 0; start < candidates.length; start += 20) {
        const batch = candidates.slice(start, start + 20);
        const queryTerms = new Set([word(start * 400), word(start * 400 + 1), 'absent']);
        const score = signal.prepare?.({ query: '', queryTerms, candidates: batch, analyzer: counting });
        expect(score?.(batch[0] as RetrievalCandidate)).toBeCloseTo(2 / 3);
        for (const candidate of batch.slice(1)) expect(score?.(candidate)).toBe(0);
      }
    }
    expect(counting.calls).toBe(passages.length);
  });
});
