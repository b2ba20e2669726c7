import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createAnalyzer } from './analyzer.ts';
import { createTermIdCache } from './term-id-cache.ts';

const analyzer = createAnalyzer();
const text = fc
  .array(fc.constantFrom('alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', '认证', 'alphas'), {
    maxLength: 12,
  })
  .map((parts) => parts.join(' '));

describe('createTermIdCache', () => {
  it('counts the query terms a passage holds like string sets do, also after the dictionary started over', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(text, fc.array(text, { maxLength: 5 })), { maxLength: 8 }), (queries) => {
        const cache = createTermIdCache(analyzer, { maxTexts: 3, maxTerms: 4 });
        for (const [query, passages] of queries) {
          cache.trim();
          const queryTerms = new Set(analyzer.analyze(query));
          cache.markQuery(queryTerms);
          for (const passage of passages) {
            const terms = new Set(analyzer.analyze(passage));
            const expected = [...queryTerms].filter((term) => terms.has(term)).length;
            expect(cache.countQueryTerms(passage)).toBe(expected);
          }
        }
      }),
    );
  });

  it('returns sorted distinct ids and the same list for a repeated text', () => {
    const cache = createTermIdCache(analyzer);
    const ids = cache.idsOf('beta alpha beta gamma alpha');
    expect(ids).toHaveLength(3);
    expect([...ids].sort((left, right) => left - right)).toEqual(ids);
    expect(cache.idsOf('beta alpha beta gamma alpha')).toBe(ids);
  });
});
