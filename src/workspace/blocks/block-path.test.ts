import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { disambiguateSegments } from './block-path.ts';

/** The definition: the smallest free `~n` (n ≥ 2), restarting the search at 2 every time. */
function naive(segments: readonly string[]): string[] {
  const taken = new Set(segments);
  const seen = new Set<string>();
  return segments.map((segment) => {
    if (!seen.has(segment)) {
      seen.add(segment);
      return segment;
    }
    let counter = 2;
    while (taken.has(`${segment}~${counter}`) || seen.has(`${segment}~${counter}`)) counter++;
    seen.add(`${segment}~${counter}`);
    return `${segment}~${counter}`;
  });
}

describe('disambiguateSegments', () => {
  it('agrees with the restart-at-2 definition, including headings that look like suffixes (property)', () => {
    const segment = fc.constantFrom('a', 'b', 'a~2', 'a~3', 'a~4', 'b~2', 'a~2~2');
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 30 }), (segments) => {
        expect(disambiguateSegments(segments)).toEqual(naive(segments));
      }),
      { numRuns: 500 },
    );
  });

  it('numbers 50,000 equal headings in one pass (the restart-at-2 search was quadratic)', () => {
    const ids = disambiguateSegments(Array.from({ length: 50_000 }, () => 'h'));
    expect(ids.slice(0, 3)).toEqual(['h', 'h~2', 'h~3']);
    expect(ids.at(-1)).toBe('h~50000');
    expect(new Set(ids).size).toBe(50_000);
  });
});
