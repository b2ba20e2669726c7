import type { RetrievalCandidate } from './candidate.ts';

/**
 * Merges candidates with the same `fingerprint`, keeping the one with the higher
 * `vectorScore` (seed 001; ties keep the first seen). Order of first appearance is kept.
 */
export function dedupeCandidates<T extends RetrievalCandidate>(candidates: readonly T[]): T[] {
  const places = new Map<string, number>();
  const kept: T[] = [];
  for (const candidate of candidates) {
    const place = places.get(candidate.fingerprint);
    if (place === undefined) {
      places.set(candidate.fingerprint, kept.length);
      kept.push(candidate);
    } else if (candidate.vectorScore > (kept[place] as T).vectorScore) {
      kept[place] = candidate;
    }
  }
  return kept;
}
