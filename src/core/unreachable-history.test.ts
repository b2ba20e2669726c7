import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ContextBlock } from './block.ts';
import { dropHistoryInChunks } from './chunk-history.ts';
import { recencyPriority } from './history.ts';
import { type Selection, selectBlocks } from './select.ts';
import { splitUnreachableHistory, withUnreachable } from './unreachable-history.ts';

function historyBlocks(tokens: number[], toolPairs: boolean[]): ContextBlock[] {
  return tokens.map((count, index) => {
    const block: ContextBlock = {
      id: `history:m${index}`,
      layer: 'history',
      source: 'history',
      content: `m${index}`,
      tokens: count,
      priority: recencyPriority(index, tokens.length),
      fingerprint: `history:m${index}`,
      metadata: {},
    };
    // A tool call and its result: this message and the next share a group.
    if (toolPairs[index] === true && index + 1 < tokens.length) block.group = `tools:m${index}`;
    if (toolPairs[index - 1] === true) block.group = `tools:m${index - 1}`;
    return block;
  });
}

function knowledgeBlocks(raw: { tokens: number; priority: number; pinned: boolean }[]): ContextBlock[] {
  return raw.map((entry, index) => ({
    id: `k${index}`,
    layer: 'knowledge__context',
    source: 'knowledge',
    content: `k${index}`,
    tokens: entry.tokens,
    priority: entry.priority,
    fingerprint: `k${index}`,
    ...(entry.pinned ? { pinned: true } : {}),
    metadata: {},
  }));
}

function select(blocks: ContextBlock[], budget: number, historyShare: number): Selection {
  const history = Math.floor(budget * historyShare);
  return selectBlocks({
    blocks,
    plan: { allocations: { history, knowledge: budget - history }, unallocated: 0 },
    pinnedBudget: budget,
    sourcePriorities: { history: 0.9, knowledge: 0.5 },
    layerOrder: ['knowledge__context', 'history'],
    separatorTokens: 1,
  });
}

function droppedKeys(selection: Selection): string[] {
  return selection.dropped.map((entry) => `${entry.block.id} ${JSON.stringify(entry.reason)}`).sort();
}

describe('splitUnreachableHistory', () => {
  it('leaves out only history no budget could reach: selection is unchanged', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 40 }), { maxLength: 60 }),
        fc.array(
          fc.integer({ min: 0, max: 9 }).map((value) => value < 2),
          { maxLength: 60 },
        ),
        fc.array(
          fc.record({
            tokens: fc.integer({ min: 1, max: 50 }),
            priority: fc.integer({ min: 0, max: 10 }).map((value) => value / 10),
            pinned: fc.integer({ min: 0, max: 9 }).map((value) => value < 1),
          }),
          { maxLength: 8 },
        ),
        fc.integer({ min: 0, max: 400 }),
        fc.integer({ min: 0, max: 10 }).map((value) => value / 10),
        fc.integer({ min: 1, max: 120 }),
        (tokens, toolPairs, knowledge, budget, historyShare, chunkTokens) => {
          const history = historyBlocks(tokens, toolPairs);
          const others = knowledgeBlocks(knowledge);
          const full = select([...others, ...history], budget, historyShare);
          const { reachable, unreachable, unreachableTokens } = splitUnreachableHistory(history, budget);
          const own = select([...others, ...reachable], budget, historyShare);
          const scan = own.dropped.length;
          const split = withUnreachable(own, unreachable, unreachableTokens);
          // A chunked cut told which drops are the unreachable ones widens the same way.
          const chunkedFull = dropHistoryInChunks(full, history, chunkTokens);
          const chunkedSplit = dropHistoryInChunks(split, history, chunkTokens, history.length - 1, {
            scan,
            oldest: unreachable.length,
          });
          expect(chunkedSplit.added.map((block) => block.id)).toEqual(
            chunkedFull.added.map((block) => block.id),
          );
          expect(chunkedSplit.selection.kept.map((block) => block.id)).toEqual(
            chunkedFull.selection.kept.map((block) => block.id),
          );
          expect(droppedKeys(chunkedSplit.selection)).toEqual(droppedKeys(chunkedFull.selection));
          expect(split.kept.map((block) => block.id)).toEqual(full.kept.map((block) => block.id));
          expect(split.layers).toEqual(full.layers);
          expect(split.pinnedTokens).toBe(full.pinnedTokens);
          expect(droppedKeys(split)).toEqual(droppedKeys(full));
          // A tool group is never split across the cut.
          const reachableGroups = new Set(reachable.map((block) => block.group));
          expect(
            unreachable.some((block) => block.group !== undefined && reachableGroups.has(block.group)),
          ).toBe(false);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('finds the same cut and chunk boundary in carried running sums as by reading every block', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 80 }),
        fc.integer({ min: -5, max: 600 }),
        fc.integer({ min: 1, max: 120 }),
        (tokens, budget, chunkTokens) => {
          const history = historyBlocks(tokens, []);
          const sums = new Float64Array(history.length + 1);
          tokens.forEach((count, index) => {
            sums[index + 1] = (sums[index] as number) + count;
          });
          const walked = splitUnreachableHistory(history, budget);
          const summed = splitUnreachableHistory(history, budget, sums);
          expect(summed.reachable).toEqual(walked.reachable);
          expect(summed.unreachable).toEqual(walked.unreachable);
          expect(summed.unreachableTokens).toBe(walked.unreachableTokens);
          const own = select(walked.reachable.slice(), Math.max(0, budget), 1);
          const scan = own.dropped.length;
          const split = withUnreachable(own, walked.unreachable, walked.unreachableTokens);
          const known = { scan, oldest: walked.unreachable.length };
          const byBlocks = dropHistoryInChunks(split, history, chunkTokens, history.length - 1, known);
          const bySums = dropHistoryInChunks(split, history, chunkTokens, history.length - 1, {
            ...known,
            tokensBefore: sums,
          });
          expect(bySums.added).toEqual(byBlocks.added);
          expect(bySums.selection.kept).toEqual(byBlocks.selection.kept);
          expect(droppedKeys(bySums.selection)).toEqual(droppedKeys(byBlocks.selection));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('cuts a long history just past what the budget holds', () => {
    const history = historyBlocks(
      Array.from({ length: 100 }, () => 10),
      [],
    );
    const { reachable, unreachable, unreachableTokens } = splitUnreachableHistory(history, 95);
    // 10 newest messages hold 100 > 95 tokens: the 10th crosses the budget and stays reachable.
    expect(reachable.map((block) => block.id)).toEqual(history.slice(90).map((block) => block.id));
    expect(unreachable).toHaveLength(90);
    expect(unreachableTokens).toBe(900);
  });

  it('carries the unreachable drops and their sum over to a later call over the same blocks', () => {
    const history = historyBlocks(
      Array.from({ length: 300 }, (_, index) => 5 + (index % 7)),
      [],
    );
    const first = splitUnreachableHistory(history.slice(0, 200), 400);
    const second = splitUnreachableHistory(history, 400);
    // The cut moved forward over the same blocks: the sums are what summing every block gives.
    const sum = (blocks: readonly ContextBlock[]) => blocks.reduce((total, block) => total + block.tokens, 0);
    expect(first.unreachableTokens).toBe(sum(first.unreachable));
    expect(second.unreachableTokens).toBe(sum(second.unreachable));
    expect(second.unreachable.length).toBeGreaterThan(first.unreachable.length);
    const grant = (grantTokens: number): Selection =>
      ({
        kept: [],
        dropped: [],
        layers: [{ layer: 'history', grantTokens, demandTokens: 0, usedTokens: 0 }],
        pinnedTokens: 0,
      }) as unknown as Selection;
    const a = withUnreachable(grant(400), first.unreachable, first.unreachableTokens).dropped;
    const b = withUnreachable(grant(400), second.unreachable, second.unreachableTokens).dropped;
    const c = withUnreachable(grant(401), second.unreachable, second.unreachableTokens).dropped;
    // Newest first; the older blocks' entries are the earlier call's objects under the same grant.
    expect(b.map((entry) => entry.block)).toEqual([...second.unreachable].reverse());
    const older = b.slice(b.length - a.length);
    expect(older.every((entry, index) => entry === a[index])).toBe(true);
    // Another grant: new entries with that grant's reason.
    expect(c.every((entry, index) => entry !== b[index])).toBe(true);
    expect(c.map((entry) => entry.reason)).toEqual(c.map(() => ({ type: 'over-budget', grantTokens: 401 })));
    expect(JSON.stringify(b.map((entry) => entry.reason))).toBe(
      JSON.stringify(b.map(() => ({ type: 'over-budget', grantTokens: 400 }))),
    );
  });
});
