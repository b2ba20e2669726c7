import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CtxloomError } from '../core/index.ts';
import { createAnalyzer } from './analyzer.ts';
import { BM25_FORMAT_VERSION, bm25Slots, createBm25Index, loadBm25Index } from './bm25-index.ts';

const corpus = [
  ['a', 'Caroline went to the LGBTQ support group yesterday'],
  ['b', 'Melanie painted a lake sunrise last year'],
  ['c', 'The support group met again on Sunday'],
  ['d', 'Melanie took the kids camping in the mountains'],
] as const;

function build() {
  const index = createBm25Index();
  for (const [id, text] of corpus) index.add(id, text);
  return index;
}

describe('createBm25Index', () => {
  it('ranks the document sharing the rarest query terms first', () => {
    const hits = build().search('When did Melanie paint a sunrise?');
    expect(hits[0]?.id).toBe('b');
    expect(hits.map((hit) => hit.id)).toContain('d');
  });

  it('gives the hits of search by slot, best first, through its slot access', () => {
    const index = build();
    index.remove('b');
    index.add('e', 'Melanie painted the support group a sunrise');
    const slots = bm25Slots(index);
    for (const query of ['Melanie sunrise support group', 'camping', 'the', 'Caroline Melanie']) {
      const hits = index.search(query, { limit: 3 });
      const count = slots?.search(query, 3) ?? -1;
      const ranked = slots?.lastSlots() ?? new Int32Array(0);
      const scores = slots?.lastScores() ?? new Float64Array(0);
      const bySlot = Array.from({ length: count }, (_, rank) => ({
        id: slots?.ids[ranked[rank] as number],
        score: scores[rank],
      }));
      expect(bySlot).toEqual(hits);
      for (const hit of hits) expect(slots?.ids[slots.slotOf(hit.id)]).toBe(hit.id);
    }
    expect(slots?.slotOf('b')).toBe(-1);
  });

  it('returns nothing for an empty or stopword-only query', () => {
    expect(build().search('')).toEqual([]);
    expect(build().search('the of and')).toEqual([]);
  });

  it('replaces a document added twice under one id and forgets removed ones', () => {
    const index = build();
    index.add('b', 'nothing about art');
    expect(index.size).toBe(4);
    expect(index.search('sunrise')).toEqual([]);
    expect(index.remove('a')).toBe(true);
    expect(index.remove('a')).toBe(false);
    expect(index.search('LGBTQ')).toEqual([]);
  });

  it('honours limit and filter', () => {
    const hits = build().search('support group Melanie', { limit: 1, filter: (id) => id !== 'a' });
    expect(hits).toHaveLength(1);
    expect(hits[0]?.id).not.toBe('a');
  });

  it('leaves no score behind from a filtered search, whole or cut short by a throwing filter', () => {
    const index = build();
    const expected = build().search('support group Melanie sunrise', { limit: 10 });
    const odd = (id: string) => id.charCodeAt(0) % 2 === 1;
    expect(index.search('support group Melanie sunrise', { limit: 10, filter: odd })).toEqual(
      expected.filter((hit) => odd(hit.id)),
    );
    let calls = 0;
    const throwing = (id: string) => {
      if (++calls === 2) throw new Error('filter failed');
      return odd(id);
    };
    expect(() => index.search('support group Melanie sunrise', { limit: 10, filter: throwing })).toThrow(
      'filter failed',
    );
    expect(index.search('support group Melanie sunrise', { limit: 10 })).toEqual(expected);
  });

  it('gives a filtered search the best passing documents, as filtering every hit first would', () => {
    const words = ['loader', 'retry', 'batch', 'queue', 'sunrise', 'lake', 'group', 'camp'];
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 6 }), {
          minLength: 1,
          maxLength: 80,
        }),
        fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1, max: 30 }),
        fc.func(fc.boolean()),
        (documents, query, limit, passes) => {
          const index = createBm25Index();
          documents.forEach((terms, at) => {
            index.add(`d${at}`, terms.join(' '));
          });
          const text = query.join(' ');
          const every = index.search(text, { limit: documents.length });
          const filter = (id: string) => passes(id);
          expect(index.search(text, { limit, filter })).toEqual(
            every.filter((hit) => filter(hit.id)).slice(0, limit),
          );
          // No score is left behind for the next search.
          expect(index.search(text, { limit: documents.length })).toEqual(every);
        },
      ),
      { numRuns: 300, seed: 263 },
    );
  });

  it('asks a filter about the best documents first, not about every one a query touches', () => {
    const index = createBm25Index();
    for (let at = 0; at < 2000; at++) index.add(`d${at}`, `the loader retries batch ${at % 50}`);
    let asked = 0;
    const hits = index.search('loader retries batch', {
      limit: 10,
      filter: (id) => {
        asked++;
        return !id.endsWith('0');
      },
    });
    expect(hits).toHaveLength(10);
    expect(hits.every((hit) => !hit.id.endsWith('0'))).toBe(true);
    expect(asked).toBeLessThanOrEqual(20);
    // A filter that passes almost nothing is asked about each touched document once, at most.
    const seen = new Map<string, number>();
    const rare = index.search('loader retries batch', {
      limit: 10,
      filter: (id) => {
        seen.set(id, (seen.get(id) ?? 0) + 1);
        return id === 'd1999' || id === 'd7';
      },
    });
    expect(rare.map((hit) => hit.id).sort()).toEqual(['d1999', 'd7']);
    expect(seen.size).toBe(2000);
    expect(Math.max(...seen.values())).toBe(1);
  });

  it('leaves no score behind from weighted searches, with pruned terms or overflowing weights', () => {
    // Enough documents for a pruned term to be completed posting by posting (that completion
    // writes every posting's score without a branch: `0 + w·i·0` must stay 0 for an untouched
    // document), and weights so large that contributions overflow to infinity.
    const many = () => {
      const index = createBm25Index();
      for (let at = 0; at < 400; at++) {
        const words = [`common word filler${at % 13} alpha${at % 3}`];
        if (at % 7 === 0) words.push('rare');
        if (at % 2 === 1) words.push('beta');
        index.add(`d${at}`, words.join(' '));
      }
      return index;
    };
    const index = many();
    const queries = [
      new Map([
        ['common', Number.POSITIVE_INFINITY],
        ['rare', 1],
      ]),
      new Map([
        ['common', 1e308],
        ['rare', 1e308],
        ['beta', 1e-300],
      ]),
      new Map([
        ['rare', Number.MAX_VALUE],
        ['common', Number.MIN_VALUE],
        ['alpha1', 1],
      ]),
    ];
    for (const terms of queries) {
      const hits = index.searchTerms(terms, { limit: 5 });
      expect(hits).toHaveLength(5);
      for (const hit of hits) expect(hit.score).toBe(Number.POSITIVE_INFINITY);
    }
    // `alpha1` (a third of the documents, a tiny weight) is pruned after `rare` and completed
    // over its postings, most of them in documents `rare` did not touch.
    const pruned = new Map([
      ['rare', 1],
      ['alpha1', 1e-6],
    ]);
    expect(index.searchTerms(pruned, { limit: 5 })).toEqual(many().searchTerms(pruned, { limit: 5 }));
    // A score left in a document the completion did not touch would keep it out of the next
    // search that reaches it (a document is listed when its score is first raised from 0).
    expect(index.search('alpha1', { limit: 200 })).toEqual(many().search('alpha1', { limit: 200 }));
    const query = 'common rare beta filler3 alpha2';
    expect(index.search(query, { limit: 10 })).toEqual(many().search(query, { limit: 10 }));
  });

  it('scores the same after add/remove churn as a fresh build of the survivors', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(...corpus.map(([id]) => id)), fc.boolean()), { maxLength: 12 }),
        (operations) => {
          const churned = build();
          const present = new Set<string>(corpus.map(([id]) => id));
          for (const [id, keep] of operations) {
            if (keep) {
              churned.add(id, corpus.find(([key]) => key === id)?.[1] ?? '');
              present.add(id);
            } else {
              churned.remove(id);
              present.delete(id);
            }
          }
          const fresh = createBm25Index();
          for (const [id, text] of corpus) if (present.has(id)) fresh.add(id, text);
          const score = (hits: { id: string; score: number }[]) =>
            Object.fromEntries(hits.map((hit) => [hit.id, hit.score.toFixed(9)]));
          expect(score(churned.search('support group Melanie sunrise'))).toEqual(
            score(fresh.search('support group Melanie sunrise')),
          );
        },
      ),
    );
  });

  it('round-trips through its versioned JSON form', () => {
    const saved = JSON.parse(JSON.stringify(build().toJSON()));
    expect(saved.version).toBe(BM25_FORMAT_VERSION);
    const restored = loadBm25Index(saved);
    expect(restored.search('support group')).toEqual(build().search('support group'));
  });

  it('refuses another format version or a different analyzer', () => {
    const saved = build().toJSON();
    expect(() => loadBm25Index({ ...saved, version: 99 })).toThrow(CtxloomError);
    expect(() => loadBm25Index(saved, { analyzer: createAnalyzer({ cjk: 'segmenter' }) })).toThrow(
      /analyzer/,
    );
  });

  it('rejects parameters outside their ranges', () => {
    expect(() => createBm25Index({ b: 2 })).toThrow(/b must/);
    expect(() => createBm25Index({ k1: -1 })).toThrow(/k1/);
  });
});
