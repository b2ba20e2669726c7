import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countAbove } from './bm25-scorer.ts';

describe('countAbove (property)', () => {
  it('says whether at least k of the listed slots score above the threshold, as a count would', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(0, 0.25, 0.5, 1, 1.5, 2, 3), { minLength: 1, maxLength: 40 }),
        fc.constantFrom(0, 0.25, 0.5, 1, 2, 2.5),
        fc.integer({ min: 1, max: 12 }),
        (values, threshold, k) => {
          const scores = Float64Array.from(values);
          // The slots listed in reverse, so a slot's place in the list is not its number.
          const slots = Int32Array.from(values.keys()).reverse();
          const above = values.filter((value) => value > threshold).length;
          expect(countAbove(slots, slots.length, scores, threshold, k)).toBe(above >= k);
        },
      ),
      { numRuns: 300 },
    );
  });
});
