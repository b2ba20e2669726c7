import type { RetrievalCandidate } from './candidate.ts';

/**
 * Merges candidates with the same `fingerprint`, keeping the one with the higher
 * `vectorScore` (seed 001; ties keep the first seen). Order of first appearance is kept.
 */
export function dedupeCandidates<T extends RetrievalCandidate>(candidates: readonly T[]): T[] {
  const best = new Map<string, T>();
  for (const candidate of candidates) {
    const current = best.get(candidate.fingerprint);
    if (current === undefined || candidate.vectorScore > current.vectorScore) {
      best.set(candidate.fingerprint, candidate);
    }
  }
  const order = new Map<string, number>();
  candidates.forEach((candidate, position) => {
    if (!order.has(candidate.fingerprint)) order.set(candidate.fingerprint, position);
  });
  return [...best.values()].sort(
    (left, right) => (order.get(left.fingerprint) ?? 0) - (order.get(right.fingerprint) ?? 0),
  );
}
