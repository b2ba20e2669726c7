import { distance } from 'fastest-levenshtein';

/**
 * Similarity of two strings in 0..1: 1 − Levenshtein distance / longer length, over UTF-16
 * units (CJK characters count once, astral ones such as emoji twice). Case and surrounding
 * whitespace are ignored. The distance is Myers' bit-parallel algorithm (`fastest-levenshtein`);
 * its cost is {@link similarityCost}.
 */
export function similarity(a: string, b: string): number {
  const left = normalize(a);
  const right = normalize(b);
  const longer = Math.max(left.length, right.length);
  if (longer === 0) return 1;
  return 1 - distance(left, right) / longer;
}

/**
 * Work of one {@link similarity} call in 32-bit word operations: ⌈shorter / 32⌉ × longer
 * (Myers' algorithm keeps the shorter string in machine words). At least 1.
 */
export function similarityCost(a: string, b: string): number {
  const shorter = Math.min(a.length, b.length);
  const longer = Math.max(a.length, b.length);
  return Math.max(1, Math.ceil(shorter / 32) * longer);
}

/** Highest similarity two strings of these lengths can reach (the distance is ≥ their difference). */
export function similarityBound(aLength: number, bLength: number): number {
  const longer = Math.max(aLength, bLength);
  return longer === 0 ? 1 : 1 - Math.abs(aLength - bLength) / longer;
}

function normalize(text: string): string {
  return text.trim().toLowerCase();
}
