import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createAnalyzer } from './analyzer.ts';
import type { RankedCandidate, RetrievalCandidate } from './candidate.ts';
import { createReranker } from './reranker.ts';
import { makeCandidate } from './test-candidates.test-support.ts';

const analyzer = createAnalyzer();

// Seed 001's reranker from its definition: dedupe by fingerprint (best vector score, first
// place), the four signals computed directly, weighted mean, best first, ties in recall order.
function referenceRerank(query: string, candidates: RetrievalCandidate[]): RankedCandidate[] {
  const kept: RetrievalCandidate[] = [];
  for (const candidate of candidates) {
    const place = kept.findIndex((other) => other.fingerprint === candidate.fingerprint);
    if (place < 0) kept.push(candidate);
    else if (candidate.vectorScore > (kept[place] as RetrievalCandidate).vectorScore) kept[place] = candidate;
  }
  const queryTerms = new Set(analyzer.analyze(query));
  const ranked = kept.map((candidate, position) => {
    const terms = new Set(analyzer.analyze(candidate.content));
    const share = kept.filter((other) => other.origin === candidate.origin).length / Math.max(1, kept.length);
    const length = candidate.content.length;
    const signals = {
      'vector-score': Math.min(1, Math.max(0, candidate.vectorScore)),
      'query-overlap':
        queryTerms.size === 0
          ? 0
          : [...queryTerms].filter((term) => terms.has(term)).length / queryTerms.size,
      'origin-diversity': share > 0.7 ? 0.3 : share > 0.5 ? 0.6 : 1,
      'content-length': length < 200 ? length / 200 : length > 800 ? 800 / length : 1,
    };
    const finalScore =
      (0 +
        signals['vector-score'] * 0.4 +
        signals['query-overlap'] * 0.35 +
        signals['origin-diversity'] * 0.15 +
        signals['content-length'] * 0.1) /
      (0.4 + 0.35 + 0.15 + 0.1);
    return { entry: { ...candidate, finalScore, signals }, position };
  });
  ranked.sort(
    (left, right) => right.entry.finalScore - left.entry.finalScore || left.position - right.position,
  );
  return ranked.map(({ entry }) => entry);
}

const words = [
  'auth',
  'token',
  'tokens',
  'expiry',
  'the',
  'deploy',
  'Deploying',
  '认证',
  '方案',
  'x'.repeat(30),
];
const text = fc.array(fc.constantFrom(...words), { maxLength: 40 }).map((parts) => parts.join(' '));

describe('createReranker (property)', () => {
  it('ranks like the seed definition, across queries sharing its caches', () => {
    const reranker = createReranker();
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            id: fc.string({ minLength: 1, maxLength: 3 }),
            content: text,
            // Mostly a few sources' names; sometimes many distinct origins.
            origin: fc.oneof(
              fc.constantFrom('memory', 'docs', 'web'),
              fc.string({ minLength: 1, maxLength: 2 }),
            ),
            vectorScore: fc.double({ min: 0, max: 1, noNaN: true }),
          }),
          { maxLength: 40 },
        ),
        text,
        (raw, query) => {
          const candidates = raw.map((entry) => makeCandidate(entry));
          const ranked = reranker.rerank({ query, candidates });
          const reference = referenceRerank(query, candidates);
          expect(ranked.map((entry) => [entry.id, entry.fingerprint, entry.signals])).toEqual(
            reference.map((entry) => [entry.id, entry.fingerprint, entry.signals]),
          );
          for (const [position, entry] of ranked.entries()) {
            expect(entry.finalScore).toBeCloseTo((reference[position] as RankedCandidate).finalScore, 12);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
