import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createContentLengthSignal,
  createOriginDiversitySignal,
  createQueryOverlapSignal,
  createVectorScoreSignal,
} from './rerank-signals.ts';
import { createReranker, inPlaceRerank } from './reranker.ts';
import { makeCandidate } from './test-candidates.test-support.ts';

describe('createReranker', () => {
  it("gives the retriever an in-place rerank: the returned candidates themselves, completed as rerank's copies are", () => {
    const candidates = () => [
      makeCandidate({ id: 'a', content: 'refresh the OAuth2 token', vectorScore: 0.4 }),
      makeCandidate({ id: 'b', content: 'OAuth2 token lifetime is one hour', vectorScore: 0.9 }),
      makeCandidate({ id: 'c', content: 'the database has two replicas', vectorScore: 0.1 }),
    ];
    const reranker = createReranker();
    const owned = candidates();
    const completed = (inPlaceRerank(reranker) as NonNullable<ReturnType<typeof inPlaceRerank>>).rerank(
      { query: 'OAuth2 token', candidates: owned, minScore: 0.3 },
      false,
    );
    expect(completed).toEqual(
      reranker.rerank({ query: 'OAuth2 token', candidates: candidates(), minScore: 0.3 }),
    );
    expect(completed.map((candidate) => candidate.id)).toEqual(['b', 'a']);
    expect(completed[0]).toBe(owned[1]);
    expect(Object.keys(owned[1] as object)).toEqual(
      Object.keys({ ...candidates()[1], finalScore: 0, signals: {} }),
    );
    // rerank itself copies; a reranker not made by createReranker has none.
    const given = candidates();
    expect(reranker.rerank({ query: 'OAuth2 token', candidates: given })[0]).not.toBe(given[1]);
    expect(given[1]).not.toHaveProperty('finalScore');
    expect(inPlaceRerank({ signals: [], rerank: () => [] })).toBeUndefined();
  });

  it('uses the seed weights .40/.35/.15/.10 by default', () => {
    expect(createReranker().signals.map((signal) => [signal.name, signal.weight])).toEqual([
      ['vector-score', 0.4],
      ['query-overlap', 0.35],
      ['origin-diversity', 0.15],
      ['content-length', 0.1],
    ]);
  });

  it('computes final = Σ score·weight / Σ weight', () => {
    const content = `${'x'.repeat(100)} token expiry`;
    const [ranked] = createReranker().rerank({
      query: 'token expiry',
      candidates: [makeCandidate({ id: 'a', content, vectorScore: 0.8 })],
    });
    // overlap 1 (both terms), single origin → share 100% → 0.3, length 113/200.
    const expected = (0.8 * 0.4 + 1 * 0.35 + 0.3 * 0.15 + (content.length / 200) * 0.1) / 1;
    expect(ranked?.finalScore).toBeCloseTo(expected, 10);
    expect(ranked?.signals['query-overlap']).toBe(1);
  });

  it('deduplicates by fingerprint keeping the higher vector score', () => {
    const ranked = createReranker().rerank({
      query: 'auth',
      candidates: [
        makeCandidate({ id: 'low', content: 'auth  uses tokens', vectorScore: 0.2 }),
        makeCandidate({ id: 'high', content: 'auth uses tokens', vectorScore: 0.9, origin: 'kb' }),
      ],
    });
    expect(ranked.map((candidate) => candidate.id)).toEqual(['high']);
  });

  it('penalises an origin holding more than 70% and more than 50% of candidates', () => {
    const signal = createOriginDiversitySignal();
    const candidates = ['a', 'a', 'a', 'b'].map((origin, index) =>
      makeCandidate({ id: String(index), content: `c${index}`, origin }),
    );
    const context = {
      query: '',
      queryTerms: new Set<string>(),
      candidates,
      analyzer: { name: '', analyze: () => [] },
    };
    expect(signal.score(candidates[0]!, context)).toBe(0.3);
    expect(signal.score(candidates[3]!, context)).toBe(1);
    const half = candidates.slice(1);
    expect(signal.score(half[0]!, { ...context, candidates: half })).toBe(0.6);
  });

  it('scores 200–800 characters as 1 and shorter or longer passages lower', () => {
    const signal = createContentLengthSignal();
    const context = {
      query: '',
      queryTerms: new Set<string>(),
      candidates: [],
      analyzer: { name: '', analyze: () => [] },
    };
    expect(signal.score(makeCandidate({ id: 'a', content: 'x'.repeat(500) }), context)).toBe(1);
    expect(signal.score(makeCandidate({ id: 'b', content: 'x'.repeat(100) }), context)).toBe(0.5);
    expect(signal.score(makeCandidate({ id: 'c', content: 'x'.repeat(1600) }), context)).toBe(0.5);
  });

  it('accepts custom signals and weights', () => {
    const reranker = createReranker({
      signals: [
        createVectorScoreSignal(1),
        createQueryOverlapSignal(0),
        { name: 'newest', weight: 1, score: (c) => (c.id === 'b' ? 1 : 0) },
      ],
    });
    const ranked = reranker.rerank({
      query: 'q',
      candidates: [
        makeCandidate({ id: 'a', content: 'one', vectorScore: 0.9 }),
        makeCandidate({ id: 'b', content: 'two', vectorScore: 0.5 }),
      ],
    });
    expect(ranked.map((candidate) => candidate.id)).toEqual(['b', 'a']);
  });

  it('records every signal score by name, for custom signal sets too', () => {
    const reranker = createReranker({
      signals: [
        { name: 'newest', weight: 1, score: (c) => (c.id === 'b' ? 1 : 0) },
        createVectorScoreSignal(1),
      ],
    });
    const ranked = reranker.rerank({
      query: 'q',
      candidates: [makeCandidate({ id: 'b', content: 'two', vectorScore: 0.25 })],
    });
    expect(ranked[0]?.signals).toEqual({ newest: 1, 'vector-score': 0.25 });
    expect(Object.keys(ranked[0]?.signals ?? {})).toEqual(['newest', 'vector-score']);
  });

  it('drops candidates under minScore and honours limit', () => {
    const candidates = [0.9, 0.1, 0.5].map((vectorScore, index) =>
      makeCandidate({ id: String(index), content: `text ${index}`, vectorScore }),
    );
    const ranked = createReranker({ signals: [createVectorScoreSignal()] }).rerank({
      query: 'q',
      candidates,
      minScore: 0.3,
      limit: 1,
    });
    expect(ranked.map((candidate) => candidate.id)).toEqual(['0']);
  });

  it('calls each custom signal signal by signal over the deduplicated candidates', () => {
    const calls: string[] = [];
    const signal = (name: string) => ({
      name,
      weight: 1,
      score: (candidate: { id: string }) => {
        calls.push(`${name}:${candidate.id}`);
        return 0.5;
      },
    });
    createReranker({ signals: [signal('first'), signal('second')] }).rerank({
      query: 'q',
      candidates: ['a', 'b'].map((id) => makeCandidate({ id, content: id })),
    });
    expect(calls).toEqual(['first:a', 'first:b', 'second:a', 'second:b']);
  });

  it('makes its default signals frozen (the reranker computes vector score and length itself)', () => {
    for (const signal of createReranker().signals) expect(Object.isFrozen(signal)).toBe(true);
  });

  it('reads limit as slice does: truncated, NaN or negative as none, beyond the list as all', () => {
    const candidates = [0.9, 0.7, 0.5].map((vectorScore, index) =>
      makeCandidate({ id: String(index), content: `text ${index}`, vectorScore }),
    );
    const reranker = createReranker({ signals: [createVectorScoreSignal()] });
    const ids = (limit: number) =>
      reranker.rerank({ query: 'q', candidates, limit }).map((candidate) => candidate.id);
    expect(ids(2.7)).toEqual(['0', '1']);
    expect(ids(Number.NaN)).toEqual([]);
    expect(ids(-1)).toEqual([]);
    expect(ids(Number.POSITIVE_INFINITY)).toEqual(['0', '1', '2']);
  });

  it('ranks a long list (more than 32 candidates) stably, ties in recall order', () => {
    const candidates = Array.from({ length: 50 }, (_, index) =>
      makeCandidate({ id: String(index), content: `passage ${index}`, vectorScore: (index % 5) / 4 }),
    );
    const ranked = createReranker({ signals: [createVectorScoreSignal()] }).rerank({
      query: 'q',
      candidates,
    });
    const expected = [...candidates]
      .sort((left, right) => right.vectorScore - left.vectorScore)
      .map((candidate) => candidate.id);
    expect(ranked.map((candidate) => candidate.id)).toEqual(expected);
    const top = createReranker({ signals: [createVectorScoreSignal()] }).rerank({
      query: 'q',
      candidates,
      limit: 40,
    });
    expect(top.map((candidate) => candidate.id)).toEqual(expected.slice(0, 40));
  });

  it('rejects a negative weight', () => {
    expect(() => createReranker({ signals: [createVectorScoreSignal(-1)] })).toThrow(/weight/);
  });
});

describe('createReranker properties', () => {
  it('returns each distinct fingerprint once, scores in 0..1, best first', () => {
    const candidate = fc.record({
      id: fc.string({ minLength: 1, maxLength: 4 }),
      content: fc.constantFrom('alpha beta', 'alpha  beta', 'gamma', '数据库 配置', ''),
      origin: fc.constantFrom('memory', 'docs', 'web'),
      vectorScore: fc.double({ min: 0, max: 1, noNaN: true }),
    });
    fc.assert(
      fc.property(fc.array(candidate, { maxLength: 15 }), fc.string({ maxLength: 20 }), (raw, query) => {
        const candidates = raw.map((entry) => makeCandidate(entry));
        const ranked = createReranker().rerank({ query, candidates });
        expect(ranked).toHaveLength(new Set(candidates.map((entry) => entry.fingerprint)).size);
        for (const [position, entry] of ranked.entries()) {
          expect(entry.finalScore).toBeGreaterThanOrEqual(0);
          expect(entry.finalScore).toBeLessThanOrEqual(1);
          if (position > 0)
            expect(entry.finalScore).toBeLessThanOrEqual(ranked[position - 1]?.finalScore ?? 1);
          const best = Math.max(
            ...candidates
              .filter((other) => other.fingerprint === entry.fingerprint)
              .map((other) => other.vectorScore),
          );
          expect(entry.vectorScore).toBe(best);
        }
      }),
    );
  });
});
