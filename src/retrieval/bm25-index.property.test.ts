import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Bm25Hit, type Bm25Index, createBm25Index } from './bm25-index.ts';

const K1 = 1.2;
const B = 0.75;
const TERMS = ['t0', 't1', 't2', 't3', 't4', 't5', 't6', 't7'];

// A document: term frequencies over a small vocabulary where `t0` and `t1` are in most
// documents (like speaker names in a conversation), so pruning has common terms to skip.
const documentArbitrary = fc
  .tuple(
    fc.integer({ min: 0, max: 9 }),
    fc.integer({ min: 0, max: 9 }),
    fc.array(fc.tuple(fc.constantFrom(...TERMS.slice(2)), fc.integer({ min: 1, max: 5 })), { maxLength: 4 }),
  )
  .map(([common0, common1, rare]) => {
    const frequencies = new Map<string, number>();
    if (common0 > 1) frequencies.set('t0', 1 + (common0 % 3));
    if (common1 > 2) frequencies.set('t1', 1 + (common1 % 2));
    for (const [term, frequency] of rare) frequencies.set(term, (frequencies.get(term) ?? 0) + frequency);
    if (frequencies.size === 0) frequencies.set('t7', 1);
    return frequencies;
  });

const operationsArbitrary = fc.array(
  fc.oneof(
    { weight: 4, arbitrary: fc.tuple(fc.constant('add' as const), fc.nat(29), documentArbitrary) },
    { weight: 1, arbitrary: fc.tuple(fc.constant('remove' as const), fc.nat(29), fc.constant(undefined)) },
  ),
  { minLength: 1, maxLength: 60 },
);

const queryArbitrary = fc.uniqueArray(
  fc.tuple(fc.constantFrom(...TERMS), fc.oneof(fc.constant(1), fc.double({ min: 0.1, max: 3, noNaN: true }))),
  { minLength: 1, maxLength: 6, selector: ([term]) => term },
);

type Operation = ['add' | 'remove', number, Map<string, number> | undefined];

function buildIndex(operations: readonly Operation[]) {
  const index = createBm25Index({ k1: K1, b: B });
  const live = new Map<string, Map<string, number>>();
  for (const [type, number, frequencies] of operations) {
    const id = `d${number}`;
    if (type === 'add' && frequencies !== undefined) {
      index.addFrequencies(id, frequencies);
      live.set(id, frequencies);
    } else {
      index.remove(id);
      live.delete(id);
    }
  }
  return { index, live };
}

// Okapi BM25 straight from the definition, one document at a time.
function referenceScores(live: Map<string, Map<string, number>>, query: ReadonlyMap<string, number>) {
  const count = live.size;
  let totalLength = 0;
  const documentFrequency = new Map<string, number>();
  for (const frequencies of live.values()) {
    for (const [term, frequency] of frequencies) {
      totalLength += frequency;
      documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
    }
  }
  const averageLength = totalLength / Math.max(1, count) || 1;
  const scores = new Map<string, number>();
  for (const [id, frequencies] of live) {
    let length = 0;
    for (const frequency of frequencies.values()) length += frequency;
    let score = 0;
    for (const [term, weight] of query) {
      const frequency = frequencies.get(term);
      if (frequency === undefined) continue;
      const df = documentFrequency.get(term) ?? 0;
      const idf = Math.log(1 + (count - df + 0.5) / (df + 0.5));
      score +=
        (weight * idf * (K1 + 1) * frequency) / (frequency + K1 * (1 - B + (B * length) / averageLength));
    }
    if (score > 0) scores.set(id, score);
  }
  return scores;
}

function expectTopK(hits: Bm25Hit[], reference: Map<string, number>, limit: number) {
  const close = (left: number, right: number) => Math.abs(left - right) <= 1e-12 * Math.max(left, right);
  expect(hits).toHaveLength(Math.min(limit, reference.size));
  for (const [position, hit] of hits.entries()) {
    expect(close(hit.score, reference.get(hit.id) ?? Number.NaN)).toBe(true);
    if (position > 0) expect(hit.score).toBeLessThanOrEqual((hits[position - 1] as Bm25Hit).score);
  }
  const returned = new Set(hits.map((hit) => hit.id));
  const last = hits.at(-1)?.score ?? Number.POSITIVE_INFINITY;
  for (const [id, score] of reference) {
    if (!returned.has(id)) expect(score <= last || close(score, last)).toBe(true);
  }
}

describe('Bm25Index search (property)', () => {
  it('returns the reference BM25 top k, with the reference scores, after any add/remove churn', () => {
    fc.assert(
      fc.property(
        operationsArbitrary,
        queryArbitrary,
        fc.integer({ min: 1, max: 12 }),
        (operations, query, limit) => {
          const { index, live } = buildIndex(operations);
          const terms = new Map(query);
          expectTopK(index.searchTerms(terms, { limit }), referenceScores(live, terms), limit);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('gives the same hits, to the bit, whether or not pruning may skip documents', () => {
    fc.assert(
      fc.property(
        operationsArbitrary,
        queryArbitrary,
        fc.integer({ min: 1, max: 12 }),
        (operations, query, limit) => {
          const { index } = buildIndex(operations);
          const terms = new Map(query);
          // A filter turns pruning off (the threshold would count documents it discards).
          const unpruned = index.searchTerms(terms, { limit, filter: () => true });
          expect(index.searchTerms(terms, { limit })).toEqual(unpruned);
          // Repeated searches reuse cached impacts and scratch buffers without drift.
          expect(index.searchTerms(terms, { limit })).toEqual(unpruned);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('completes the touched documents with common and mid-frequency terms they skipped', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.nat(299), { minLength: 1, maxLength: 6 }),
        fc.uniqueArray(fc.nat(299), { maxLength: 8 }),
        fc.integer({ min: 1, max: 5 }),
        (withRare, withOther, limit) => {
          // t0 in every document (completed through its impacts by slot), t6 in 40% (looked
          // up per touched document), t5 rare, t7 in a few.
          const live = new Map<string, Map<string, number>>();
          for (let number = 0; number < 300; number++) {
            const frequencies = new Map([['t0', 1 + (number % 4)]]);
            if (withRare.includes(number)) frequencies.set('t5', 1 + (number % 2));
            if (number % 5 < 2) frequencies.set('t6', 1 + (number % 3));
            if (withOther.includes(number)) frequencies.set('t7', 1);
            live.set(`d${number}`, frequencies);
          }
          const index = createBm25Index({ k1: K1, b: B });
          for (const [id, frequencies] of live) index.addFrequencies(id, frequencies);
          const terms = new Map([
            ['t0', 1],
            ['t6', 1],
            ['t5', 1],
            ['t7', 1],
          ]);
          const hits = index.searchTerms(terms, { limit });
          expectTopK(hits, referenceScores(live, terms), limit);
          expect(hits).toEqual(index.searchTerms(terms, { limit, filter: () => true }));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('scores a query the same after the collection changed and changed back', () => {
    const index: Bm25Index = createBm25Index();
    index.add('a', 'the support group met on sunday');
    index.add('b', 'melanie painted a sunrise');
    const before = index.search('support sunrise');
    index.add('c', 'a third document about support');
    expect(index.search('support sunrise')).not.toEqual(before);
    index.remove('c');
    expect(index.search('support sunrise')).toEqual(before);
  });
});
