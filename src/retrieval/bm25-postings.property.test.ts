import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  appendPosting,
  createPostingsStore,
  FACT_COUNT,
  FACT_START,
  FACTS,
  type PostingsStore,
  removePosting,
} from './bm25-postings.ts';

// Many rare terms that come and go, so runs move, terms are released and the arrays compact.
const TERMS = Array.from({ length: 24 }, (_, number) => `t${number}`);

const operationsArbitrary = fc.array(
  fc.oneof(
    {
      weight: 3,
      arbitrary: fc.tuple(
        fc.constant('append' as const),
        fc.constantFrom(...TERMS),
        fc.nat(15),
        fc.integer({ min: 1, max: 9 }),
      ),
    },
    {
      weight: 2,
      // The fourth number picks one of the term's postings (a slot when it has none).
      arbitrary: fc.tuple(
        fc.constant('remove' as const),
        fc.constantFrom(...TERMS),
        fc.constant(0),
        fc.nat(15),
      ),
    },
  ),
  { minLength: 1, maxLength: 400, size: 'max' },
);

// A term's postings as [slot, frequency] pairs, read from the store's run.
function runOf(store: PostingsStore, term: string): Array<[number, number]> {
  const number = store.numbers.get(term);
  if (number === undefined) return [];
  const start = store.facts[number * FACTS + FACT_START] as number;
  const count = store.facts[number * FACTS + FACT_COUNT] as number;
  const run: Array<[number, number]> = [];
  for (let at = start; at < start + count; at++) {
    run.push([store.slots[at] as number, store.frequencies[at] as number]);
  }
  return run;
}

describe('postings store (property)', () => {
  it('keeps every term its postings in order through appends, removals, moves and compactions', () => {
    let compactions = 0;
    fc.assert(
      fc.property(operationsArbitrary, (operations) => {
        const store = createPostingsStore();
        const model = new Map<string, Array<[number, number]>>();
        for (const [type, term, slot, frequency] of operations) {
          const released = store.released;
          const list = model.get(term) ?? [];
          if (type === 'append') {
            if (list.some(([held]) => held === slot)) continue;
            appendPosting(store, term, slot, frequency);
            list.push([slot, frequency]);
            model.set(term, list);
          } else {
            const at = list.length === 0 ? -1 : frequency % list.length;
            const removed = at < 0 ? frequency : (list[at] as [number, number])[0];
            expect(removePosting(store, term, removed)).toBe(at >= 0);
            if (at >= 0) list.splice(at, 1);
            if (list.length === 0) model.delete(term);
          }
          // Only a compaction lowers the released count.
          if (store.released < released) compactions++;
        }
        for (const term of TERMS) expect(runOf(store, term)).toEqual(model.get(term) ?? []);
        expect(new Set(store.numbers.keys())).toEqual(new Set(model.keys()));
        // No two live runs overlap, and all lie below `end`.
        const runs = [...store.numbers.values()]
          .map((number) => [
            store.facts[number * FACTS + FACT_START] as number,
            store.facts[number * FACTS + FACT_COUNT] as number,
          ])
          .sort((left, right) => (left[0] as number) - (right[0] as number));
        for (const [position, [start, count]] of runs.entries()) {
          expect((start as number) + (count as number)).toBeLessThanOrEqual(
            (runs[position + 1]?.[0] ?? store.end) as number,
          );
        }
      }),
      { numRuns: 300 },
    );
    // The generated churn does reach the packing path (a compaction leaves nothing released).
    expect(compactions).toBeGreaterThan(0);
  });
});
