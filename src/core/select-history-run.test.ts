import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ContextBlock } from './block.ts';
import { withSummary } from './compact.ts';
import { positionPriority } from './history.ts';
import { type SelectInput, type Selection, selectBlocks, selectEach } from './select.ts';

/** A history as the core makes it: one block per message, priorities rising with position. */
function historyOf(tokens: readonly number[], tag: string, grouped: number): ContextBlock[] {
  return tokens.map((count, index) => {
    const block: ContextBlock = {
      id: `history:${tag}${index}`,
      layer: 'history',
      source: 'history',
      content: `${tag}${index}`,
      tokens: count,
      priority: positionPriority(index),
      fingerprint: `history:${tag}${index}`,
      metadata: { index },
    };
    if (index === grouped) block.group = `tools:${tag}${index}`;
    return block;
  });
}

const other = fc.record({
  layer: fc.constantFrom('knowledge__context', 'todo__context'),
  tokens: fc.integer({ min: 1, max: 80 }),
  priority: fc.integer({ min: 0, max: 10 }).map((value) => value / 10),
  content: fc.integer({ min: 0, max: 6 }),
  pinned: fc.integer({ min: 0, max: 9 }).map((value) => value === 0),
  group: fc.option(fc.integer({ min: 0, max: 2 }), { nil: undefined }),
  message: fc.integer({ min: 0, max: 19 }).map((value) => (value === 0 ? 'a0' : undefined)),
  after: fc.integer({ min: 0, max: 4 }).map((value) => value === 0),
});

type RawOther = typeof other extends fc.Arbitrary<infer T> ? T : never;

function othersOf(raw: readonly RawOther[]): {
  before: ContextBlock[];
  after: ContextBlock[];
} {
  const before: ContextBlock[] = [];
  const after: ContextBlock[] = [];
  raw.forEach((entry, index) => {
    const block: ContextBlock = {
      id: `o${index}`,
      layer: entry.layer,
      source: `${entry.layer}-src`,
      content: `c${entry.content}`,
      tokens: entry.tokens,
      priority: entry.priority,
      fingerprint: `f${entry.content}`,
      metadata: entry.message === undefined ? {} : { messageId: entry.message },
    };
    if (entry.pinned) block.pinned = true;
    if (entry.group !== undefined) block.group = `g${entry.group}`;
    (entry.after ? after : before).push(block);
  });
  return { before, after };
}

function inputOf(
  blocks: ContextBlock[],
  budget: number,
  shares: readonly number[],
  pinnedBudget: number,
): SelectInput {
  const total = shares.reduce((sum, share) => sum + share, 0) || 1;
  const allocations: Record<string, number> = {
    'knowledge__context-src': Math.floor((budget * (shares[0] ?? 0)) / total),
    'todo__context-src': Math.floor((budget * (shares[1] ?? 0)) / total),
    history: Math.floor((budget * (shares[2] ?? 0)) / total),
  };
  const allocated = Object.values(allocations).reduce((sum, value) => sum + value, 0);
  return {
    blocks,
    plan: { allocations, unallocated: Math.max(0, budget - allocated) },
    pinnedBudget,
    sourcePriorities: { 'knowledge__context-src': 0.5, 'todo__context-src': 0.7, history: 0.9 },
    layerOrder: ['knowledge__context', 'todo__context', 'history'],
    separatorTokens: 1,
  };
}

function expectSame(fast: Selection, each: Selection): void {
  expect(fast.kept).toEqual(each.kept);
  expect(fast.kept.map((block) => block.id)).toEqual(each.kept.map((block) => block.id));
  expect(fast.dropped.map((entry) => [entry.block.id, entry.reason])).toEqual(
    each.dropped.map((entry) => [entry.block.id, entry.reason]),
  );
  expect(fast.layers).toEqual(each.layers);
  expect(fast.pinnedTokens).toBe(each.pinnedTokens);
}

const summaryBlock: ContextBlock = {
  id: 'summary',
  layer: 'todo__context',
  source: 'todo__context-src',
  content: 'summary',
  tokens: 7,
  priority: 0.6,
  fingerprint: 'summary',
  metadata: {},
};

describe('selection of a carried-over history run (decision 067)', () => {
  it('selects what a unit-by-unit selection selects, call after call, as the history grows and its start moves', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 50 }), { minLength: 30, maxLength: 160 }),
        fc.array(other, { maxLength: 10 }),
        fc.array(
          fc.record({
            appended: fc.integer({ min: 0, max: 6 }),
            from: fc.integer({ min: 0, max: 40 }),
            budget: fc.integer({ min: 0, max: 3000 }),
            other: fc.boolean(),
          }),
          { minLength: 1, maxLength: 6 },
        ),
        fc.tuple(
          fc.integer({ min: 0, max: 4 }),
          fc.integer({ min: 0, max: 4 }),
          fc.integer({ min: 0, max: 4 }),
        ),
        fc.integer({ min: -1, max: 200 }),
        fc.integer({ min: 0, max: 120 }),
        (tokens, raw, calls, shares, grouped, pinnedBudget) => {
          const { before, after } = othersOf(raw);
          const all = historyOf(tokens, 'm', grouped);
          // Another history in between: the carried-over run is replaced and found again.
          const stranger = historyOf(tokens.slice(0, 40), 's', -1);
          let length = Math.max(1, tokens.length - 20);
          for (const call of calls) {
            length = Math.min(tokens.length, length + call.appended);
            const history = call.other ? stranger : all.slice(Math.min(call.from, length - 1), length);
            const blocks = [...before, ...history, ...after];
            const input = inputOf(blocks, call.budget, shares, pinnedBudget);
            expectSame(selectBlocks(input), selectEach(input));
            // The second selection of a call sees the same run.
            expectSame(selectBlocks(input), selectEach(input));
            // So does one over the pool with a summary (a copy with a block after it: the run
            // is taken from the last walk, decision 067's fifth amendment).
            const pooled = inputOf(withSummary(blocks, summaryBlock), call.budget, shares, pinnedBudget);
            expectSame(selectBlocks(pooled), selectEach(pooled));
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('cuts a long history where the grant ends', () => {
    const history = historyOf(
      Array.from({ length: 200 }, () => 10),
      'm',
      -1,
    );
    const input = inputOf(history, 995, [0, 0, 1], 0);
    const selection = selectBlocks(input);
    // 99 newest messages fit 995 tokens.
    expect(selection.kept).toEqual(history.slice(101));
    expect(selection.dropped[0]?.block).toBe(history[100]);
    expect(selection.dropped.at(-1)?.block).toBe(history[0]);
    expectSame(selection, selectEach(input));
  });
});
