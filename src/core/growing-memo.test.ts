import { describe, expect, it } from 'vitest';
import { growingMemo, sharedPrefix, startsWithSame } from './growing-memo.ts';

describe('growingMemo', () => {
  it('returns the same result for the same array, extends a longer one and remakes any other', () => {
    const calls: string[] = [];
    const sum = growingMemo<{ n: number }, number>({
      full: (items) => {
        calls.push(`full ${items.length}`);
        return items.reduce((total, item) => total + item.n, 0);
      },
      extend: (last, items, from) => {
        calls.push(`extend from ${from}`);
        return last + items.slice(from).reduce((total, item) => total + item.n, 0);
      },
    });
    const [a, b, c] = [{ n: 1 }, { n: 2 }, { n: 3 }];
    const first = [a, b];
    expect(sum([])).toBeUndefined();
    expect(sum(first)).toBe(3);
    expect(sum(first)).toBe(3);
    expect(sum([a, b, c])).toBe(6);
    // Not an extension of the last array (b is missing): made in full.
    expect(sum([a, c])).toBe(4);
    expect(calls).toEqual(['full 2', 'extend from 2', 'full 2']);
    expect(startsWithSame([a, b, c], [a, b])).toBe(true);
    expect(startsWithSame([a, { n: 2 }], [a, b])).toBe(false);
    expect(startsWithSame([a], [a, b])).toBe(false);
    expect(sharedPrefix([a, b, c], [a, { n: 2 }, c])).toBe(1);
  });

  it('rewinds to the items an array still shares with the last one, then extends from there', () => {
    const calls: string[] = [];
    const list = growingMemo<{ n: number }, number[]>({
      full: (items) => {
        calls.push(`full ${items.length}`);
        return items.map((item) => item.n);
      },
      extend: (last, items, from) => {
        calls.push(`extend from ${from}`);
        return [...last, ...items.slice(from).map((item) => item.n)];
      },
      rewind: (last, source, kept) => {
        calls.push(`rewind ${source.length} to ${kept}`);
        return last.slice(0, kept);
      },
    });
    const [a, b, c] = [{ n: 1 }, { n: 2 }, { n: 3 }];
    expect(list([a, b])).toEqual([1, 2]);
    // b replaced by a copy that says otherwise, c added: kept a, read from there.
    expect(list([a, { n: 20 }, c])).toEqual([1, 20, 3]);
    // Shorter: cut back.
    expect(list([a])).toEqual([1]);
    expect(calls).toEqual(['full 2', 'rewind 2 to 1', 'extend from 1', 'rewind 3 to 1', 'extend from 1']);
  });
});
