import { describe, expect, it } from 'vitest';
import { HistoryCache } from './delta-history.ts';

/** An entry whose one channel holds `writes` writes stored as `bytes` bytes. */
function entry(targetId: string, bytes: number) {
  return {
    targetId,
    channels: new Map([
      [
        'session_calls',
        { writes: [['task', 'session_calls', [targetId]] as [string, string, unknown]], bytes },
      ],
    ]),
    included: new Set([`${targetId}-parent`]),
  };
}

describe('HistoryCache', () => {
  it('holds the histories of all threads within its bytes: the least recently read thread goes first, the one just read stays', () => {
    const cache = new HistoryCache(64, 1000);
    cache.set(1, entry('a', 400));
    cache.set(2, entry('b', 400));
    expect(cache.get(1)?.targetId).toBe('a'); // thread 1 read last: thread 2 is the oldest
    cache.set(3, entry('c', 400));
    expect([cache.get(1)?.targetId, cache.get(2), cache.get(3)?.targetId]).toEqual(['a', undefined, 'c']);
    // One long thread over the whole bound is kept alone (its next turn extends it).
    cache.set(4, entry('d', 5000));
    expect([cache.get(1), cache.get(3), cache.get(4)?.targetId]).toEqual([undefined, undefined, 'd']);
  });

  it('forgets an entry whose included checkpoint is written, and gives its bytes back', () => {
    const cache = new HistoryCache(64, 1000);
    cache.set(1, entry('a', 600));
    cache.invalidate(1, 'other');
    expect(cache.get(1)?.targetId).toBe('a');
    cache.invalidate(1, 'a-parent');
    expect(cache.get(1)).toBeUndefined();
    cache.set(2, entry('b', 600));
    cache.set(3, entry('c', 400)); // fits beside b: a's bytes were given back
    expect([cache.get(2)?.targetId, cache.get(3)?.targetId]).toEqual(['b', 'c']);
  });
});
