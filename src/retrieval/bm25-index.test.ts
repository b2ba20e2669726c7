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
