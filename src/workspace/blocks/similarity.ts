/**
 * Similarity of two strings in 0..1: 1 − Levenshtein distance / longer length, over code
 * points (so CJK characters count once). Case and surrounding whitespace are ignored.
 */
export function similarity(a: string, b: string): number {
  const left = Array.from(a.trim().toLowerCase());
  const right = Array.from(b.trim().toLowerCase());
  const longer = Math.max(left.length, right.length);
  if (longer === 0) return 1;
  let previous = Array.from({ length: right.length + 1 }, (_, index) => index);
  for (let i = 1; i <= left.length; i++) {
    const current = [i];
    for (let j = 1; j <= right.length; j++) {
      const cost = left[i - 1] === right[j - 1] ? 0 : 1;
      current[j] = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
    }
    previous = current;
  }
  return 1 - (previous[right.length] as number) / longer;
}
