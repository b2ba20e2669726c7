import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RetrievalCandidate } from './candidate.ts';
import { dedupeCandidates, dedupedView } from './dedupe-candidates.ts';

// The definition: best vector score per fingerprint (ties: first seen), in order of first appearance.
function reference(candidates: RetrievalCandidate[]): RetrievalCandidate[] {
  const order: string[] = [];
  const best = new Map<string, RetrievalCandidate>();
  for (const candidate of candidates) {
    const current = best.get(candidate.fingerprint);
    if (current === undefined) order.push(candidate.fingerprint);
    if (current === undefined || candidate.vectorScore > current.vectorScore)
      best.set(candidate.fingerprint, candidate);
  }
  return order.map((fingerprint) => best.get(fingerprint) as RetrievalCandidate);
}

const fingerprint = fc.oneof(
  fc.constantFrom('a', 'b', 'c', '0cb2914d0fb530', '144eb3d8147718', ''),
  fc.string({ maxLength: 3 }),
  // Long fingerprints that differ only where a sampled hash may not look.
  fc.nat(5).map((number) => `${'x'.repeat(40)}${number}${'y'.repeat(40)}`),
);

describe('dedupeCandidates', () => {
  it('keeps the best of each fingerprint in order of first appearance, short lists and long', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fingerprint, fc.double({ min: 0, max: 1, noNaN: true })), { maxLength: 90 }),
        (entries) => {
          const candidates = entries.map(
            ([key, vectorScore], position): RetrievalCandidate => ({
              id: String(position),
              origin: 'memory',
              content: key,
              vectorScore,
              fingerprint: key,
              metadata: {},
            }),
          );
          expect(dedupeCandidates(candidates)).toEqual(reference(candidates));
          // Deterministic: a second call agrees.
          expect(dedupeCandidates(candidates)).toEqual(reference(candidates));
          // The view agrees too, and is the list itself exactly when nothing was merged.
          const view = dedupedView(candidates);
          expect(view).toEqual(reference(candidates));
          if (candidates.length <= 32)
            expect(view === candidates).toBe(reference(candidates).length === candidates.length);
          expect(dedupeCandidates(candidates)).not.toBe(candidates);
        },
      ),
      { numRuns: 300 },
    );
  });
});
