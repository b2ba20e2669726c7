import { describe, expect, it } from 'vitest';
import { createRunMemo } from './run-memo.ts';

interface Item {
  name: string;
  part: 'head' | 'body';
}

const items = (names: string[], part: Item['part']): Item[] => names.map((name) => ({ name, part }));

describe('createRunMemo', () => {
  const compute = (item: Item, index: number) => `${item.name}@${index}`;

  it('computes a repeated run once and copies it while each value stays valid', () => {
    const memo = createRunMemo<Item, string>();
    const head = items(['system'], 'head');
    const body = items(['a', 'b', 'c', 'd'], 'body');
    const keys = [...head, ...body];
    const startsRun = (list: Item[]) => (index: number) => list[index]?.part !== list[index - 1]?.part;
    const first = memo.map({ keys, compute, valid: () => true, startsRun: startsRun(keys) });
    expect(first).toEqual(['system@0', 'a@1', 'b@2', 'c@3', 'd@4']);
    expect(memo.computed).toBe(5);
    // A fresh head, the same body and one new item: only the head and the new item are computed.
    const next = [...items(['system'], 'head'), ...body, ...items(['e'], 'body')];
    const second = memo.map({ keys: next, compute, valid: () => true, startsRun: startsRun(next) });
    expect(second).toEqual(['system@0', 'a@1', 'b@2', 'c@3', 'd@4', 'e@5']);
    expect(memo.computed).toBe(7);
  });

  it('reuses a run the caller computed and remembered as map would have kept it', () => {
    const memo = createRunMemo<Item, string>();
    const keys = items(['a', 'b', 'c'], 'body');
    memo.remember(keys, keys.map(compute));
    expect(memo.computed).toBe(3);
    // The same keys after one new head: the remembered run is found at its first key.
    const next = [...items(['system'], 'head'), ...keys];
    const values = memo.map({ keys: next, compute, valid: () => true, startsRun: () => false });
    expect(values).toEqual(['system@0', 'a@0', 'b@1', 'c@2']);
    expect(memo.computed).toBe(4);
  });

  it('recomputes from the first value that is no longer valid, and survives changes to what it returned', () => {
    const memo = createRunMemo<Item, string>();
    const keys = items(['a', 'b', 'c'], 'body');
    const returned = memo.map({ keys, compute, valid: () => true, startsRun: () => false });
    returned[1] = 'changed';
    keys.push({ name: 'late', part: 'body' });
    const again = memo.map({
      keys: keys.slice(0, 3),
      compute: (item, index) => `${item.name}#${index}`,
      valid: (_value, index) => index < 2,
      startsRun: () => false,
    });
    expect(again).toEqual(['a@0', 'b@1', 'c#2']);
    expect(memo.computed).toBe(4);
  });

  it('hands a reused value the number kept with it in the call that made the run, a copy (decision 067, item 12)', () => {
    const memo = createRunMemo<Item, string>();
    const keys = items(['a', 'b', 'c'], 'body');
    const costs = [10, 20, 30];
    memo.map({ keys, compute, valid: () => true, startsRun: () => false, numbers: costs });
    costs[1] = 99; // changed after the call: the run kept its own copy
    const seen: number[] = [];
    const again = memo.map({
      keys,
      compute: (item, index) => `${item.name}#${index}`,
      valid: (_value, index, saved) => {
        seen.push(saved);
        return saved === [10, 20, 31][index];
      },
      startsRun: () => false,
    });
    expect(seen).toEqual([10, 20, 30]);
    expect(again).toEqual(['a@0', 'b@1', 'c#2']);
    // Without numbers, a check gets NaN.
    const plain = createRunMemo<Item, string>();
    plain.map({ keys, compute, valid: () => true, startsRun: () => false });
    const none: number[] = [];
    plain.map({
      keys,
      compute,
      valid: (_value, _index, saved) => {
        none.push(saved);
        return true;
      },
      startsRun: () => false,
    });
    expect(none.every(Number.isNaN)).toBe(true);
  });
});
