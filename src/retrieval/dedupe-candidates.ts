import type { RetrievalCandidate } from './candidate.ts';

// Open-addressing table for short lists: slot → place + 1 (0 = empty). Shared scratch (the
// function is synchronous and never re-entered) so a rerank allocates no hash table.
const TABLE_SIZE = 128;
const table = new Int32Array(TABLE_SIZE);
const SHORT_LIST = TABLE_SIZE / 4;
let tableInUse = false;

/**
 * Merges candidates with the same `fingerprint`, keeping the one with the higher
 * `vectorScore` (seed 001; ties keep the first seen). Order of first appearance is kept.
 */
export function dedupeCandidates<T extends RetrievalCandidate>(candidates: readonly T[]): T[] {
  // A fingerprint getter that dedupes again finds the table busy and takes the Map path.
  if (candidates.length > SHORT_LIST || tableInUse) return dedupeWithMap(candidates);
  tableInUse = true;
  const kept: T[] = [];
  try {
    for (const candidate of candidates) {
      const fingerprint = candidate.fingerprint;
      let at = hashOf(fingerprint) & (TABLE_SIZE - 1);
      for (;;) {
        const place = (table[at] as number) - 1;
        if (place < 0) {
          table[at] = kept.length + 1;
          kept.push(candidate);
          break;
        }
        const other = kept[place] as T;
        if (other.fingerprint === fingerprint) {
          if (candidate.vectorScore > other.vectorScore) kept[place] = candidate;
          break;
        }
        at = (at + 1) & (TABLE_SIZE - 1);
      }
    }
    return kept;
  } finally {
    table.fill(0);
    tableInUse = false;
  }
}

function dedupeWithMap<T extends RetrievalCandidate>(candidates: readonly T[]): T[] {
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

// FNV-1a over up to 16 characters spread across the string, plus its length.
function hashOf(text: string): number {
  let hash = 0x811c9dc5 ^ text.length;
  const step = text.length > 16 ? text.length >>> 4 : 1;
  for (let index = 0; index < text.length; index += step) {
    hash = Math.imul(hash ^ text.charCodeAt(index), 16777619);
  }
  return hash >>> 4;
}
