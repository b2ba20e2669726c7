import type { RetrievalCandidate } from './candidate.ts';

/**
 * Merges candidates with the same `fingerprint`, keeping the one with the higher
 * `vectorScore` (seed 001; ties keep the first seen). Order of first appearance is kept.
 */
export function dedupeCandidates<T extends RetrievalCandidate>(candidates: readonly T[]): T[] {
  const kept = dedupedView(candidates);
  return kept === candidates ? [...candidates] : (kept as T[]);
}

/**
 * {@link dedupeCandidates} for a reader that does not keep or change the list: a short list
 * (≤ 32, a recall round's usual size) in which no two share a fingerprint is returned itself,
 * not copied; otherwise a new list.
 */
export function dedupedView<T extends RetrievalCandidate>(candidates: readonly T[]): readonly T[] {
  if (candidates.length <= SCAN_LIMIT) return dedupeByScan(candidates);
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

// Up to this many candidates (a recall round's usual 20), a scan of the kept ones beats a
// Map, which a list this short makes grow and rehash three times.
const SCAN_LIMIT = 32;

// The scan, behind a 64-bit filter of the fingerprints kept so far (a bit chosen by length
// and two characters: equal strings choose the same bit), so a new fingerprint — nearly
// every one — is kept without comparing it with the others.
// Returns `candidates` itself while every fingerprint is new; the list of kept ones is built
// from the first repeat on.
function dedupeByScan<T extends RetrievalCandidate>(candidates: readonly T[]): readonly T[] {
  let kept: T[] | undefined;
  let low = 0;
  let high = 0;
  for (let position = 0; position < candidates.length; position++) {
    const candidate = candidates[position] as T;
    const fingerprint = candidate.fingerprint;
    const length = fingerprint.length;
    const bit =
      length === 0
        ? 0
        : (length + fingerprint.charCodeAt(length - 1) * 7 + fingerprint.charCodeAt(length >> 1) * 13) & 63;
    const mask = 1 << (bit & 31);
    if (bit < 32 ? (low & mask) === 0 : (high & mask) === 0) {
      if (bit < 32) low |= mask;
      else high |= mask;
      kept?.push(candidate);
      continue;
    }
    // Until a first repeat, the kept ones are the candidates before this one.
    const list = kept ?? candidates;
    const end = kept === undefined ? position : kept.length;
    let place = 0;
    while (place < end && (list[place] as T).fingerprint !== fingerprint) place++;
    if (place === end) {
      kept?.push(candidate);
      continue;
    }
    kept ??= candidates.slice(0, position);
    if (candidate.vectorScore > (kept[place] as T).vectorScore) kept[place] = candidate;
  }
  return kept ?? candidates;
}
