import { describe, expect, it } from 'vitest';
import { createCharCounter } from '../testing/index.ts';
import { createBlock } from './block.ts';
import { dropHistoryRange } from './chunk-history.ts';
import type { Selection } from './select.ts';

const counter = createCharCounter();

describe('dropHistoryRange', () => {
  it('frees the range’s tokens from the running sums as from its blocks, and drops it in order', () => {
    const history = Array.from({ length: 12 }, (_, index) =>
      createBlock(
        {
          id: `m${index}`,
          layer: 'history',
          source: 'history',
          content: 'x'.repeat(10 + index * 7),
          priority: 0.5,
        },
        counter,
      ),
    );
    const sums = new Float64Array(history.length + 1);
    for (const [index, block] of history.entries()) sums[index + 1] = (sums[index] as number) + block.tokens;
    const used = history.reduce((sum, block) => sum + block.tokens, 0);
    const selection = (): Selection => ({
      kept: [...history],
      dropped: [],
      layers: [{ layer: 'history', grantTokens: used, usedTokens: used, demandTokens: used }],
      pinnedTokens: 0,
    });
    const reason = Object.freeze({ type: 'over-budget' as const, grantTokens: used });
    const read = dropHistoryRange(selection(), history, 3, 8, reason);
    const summed = dropHistoryRange(selection(), history, 3, 8, reason, sums);
    const freed = history.slice(3, 8).reduce((sum, block) => sum + block.tokens, 0);
    for (const result of [read, summed]) {
      expect(result.added.map((block) => block.id)).toEqual(['m3', 'm4', 'm5', 'm6', 'm7']);
      expect(result.selection.kept.map((block) => block.id)).toEqual([
        'm0',
        'm1',
        'm2',
        'm8',
        'm9',
        'm10',
        'm11',
      ]);
      expect(result.selection.dropped.map((entry) => entry.block.id)).toEqual(['m3', 'm4', 'm5', 'm6', 'm7']);
      expect(result.selection.layers[0]?.usedTokens).toBe(used - freed);
    }
  });
});
