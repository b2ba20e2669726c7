import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { topSlots } from './top-slots.ts';

// The definition: every slot sorted by score (best first), ties by the lower slot, cut at limit.
function reference(slots: readonly number[], scores: Float64Array, limit: number): number[] {
  return [...slots]
    .sort((left, right) => (scores[right] as number) - (scores[left] as number) || left - right)
    .slice(0, Math.max(0, limit));
}

describe('topSlots', () => {
  it('keeps the best slots, ties by the lower slot, below and above the insertion limit (32)', () => {
    fc.assert(
      fc.property(
        // Few distinct scores, so ties are common; slots in any order.
        fc.array(fc.integer({ min: 0, max: 6 }), { maxLength: 120 }),
        fc.integer({ min: 0, max: 70 }),
        fc.integer(),
        (values, limit, seed) => {
          const scores = Float64Array.from(values, (value) => value / 4);
          const slots = values.map((_, slot) => slot);
          // A deterministic shuffle: touched slots come in posting order, not slot order.
          for (let index = slots.length - 1, state = seed; index > 0; index--) {
            state = (Math.imul(state, 1103515245) + 12345) | 0;
            const other = (state >>> 8) % (index + 1);
            [slots[index], slots[other]] = [slots[other] as number, slots[index] as number];
          }
          const heap = new Int32Array(Math.max(1, limit));
          const size = topSlots(Int32Array.from(slots), slots.length, scores, limit, heap);
          expect([...heap.subarray(0, size)]).toEqual(reference(slots, scores, limit));
        },
      ),
      { numRuns: 400 },
    );
  });
});
