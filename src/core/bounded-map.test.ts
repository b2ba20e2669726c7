import { describe, expect, it } from 'vitest';
import { BoundedMap } from './bounded-map.ts';

describe('BoundedMap', () => {
  it('evicts the least recently used past its count; get refreshes, peek does not', () => {
    const map = new BoundedMap<string, number>(3, 100);
    map.set('a', 1, 1);
    map.set('b', 2, 1);
    map.set('c', 3, 1);
    expect(map.get('a')).toBe(1); // a is now the newest
    expect(map.peek('b')).toBe(2); // b stays the oldest
    map.set('d', 4, 1);
    expect([map.peek('a'), map.peek('b'), map.peek('c'), map.peek('d')]).toEqual([1, undefined, 3, 4]);
    expect(map.size).toBe(3);
  });

  it('evicts past its weight, counts a replaced entry once, and keeps one entry heavier than the bound alone', () => {
    const map = new BoundedMap<string, string>(10, 10);
    map.set('a', 'x', 4);
    map.set('b', 'y', 4);
    map.set('a', 'z', 4); // replaces a (weight 4, not 8): both fit
    expect([map.peek('a'), map.peek('b')]).toEqual(['z', 'y']);
    map.set('c', 'w', 4); // 12 > 10: b, the least recently used, goes
    expect([map.peek('a'), map.peek('b'), map.peek('c')]).toEqual(['z', undefined, 'w']);
    map.set('huge', 'h', 50);
    expect(map.size).toBe(1);
    expect(map.peek('huge')).toBe('h');
    map.set('d', 'v', 1);
    expect([map.peek('huge'), map.peek('d')]).toEqual([undefined, 'v']);
  });

  it('gives a deleted or cleared entry its weight back', () => {
    const map = new BoundedMap<string, string>(10, 10);
    map.set('a', 'x', 6);
    map.set('b', 'y', 4);
    map.delete('a');
    map.delete('missing');
    expect(map.weight).toBe(4);
    map.set('c', 'z', 6); // fits beside b: a's weight was given back
    expect([map.peek('b'), map.peek('c')]).toEqual(['y', 'z']);
    map.clear();
    expect([map.size, map.weight]).toEqual([0, 0]);
  });
});
