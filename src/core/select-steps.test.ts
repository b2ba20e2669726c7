import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ContextBlock } from './block.ts';
import { type SelectInput, selectBlocks } from './select.ts';

/** A block of `layer` from `source`; history blocks rise in priority with `order`. */
function block(
  id: string,
  layer: string,
  tokens: number,
  priority: number,
  extra: Partial<ContextBlock> = {},
): ContextBlock {
  return {
    id,
    layer,
    source: layer === 'history' ? 'history' : `${layer}-src`,
    content: id,
    tokens,
    priority,
    fingerprint: id,
    metadata: {},
    ...extra,
  };
}

const STEP_IDS = new Set(['call', 'result']);
const isStep = (candidate: ContextBlock) => STEP_IDS.has(candidate.id);

/** Older history, then the turn's tool call and its result (one group), as a tool step compiles them. */
function history(): ContextBlock[] {
  return [
    block('h1', 'history', 40, 0.1),
    block('h2', 'history', 30, 0.5),
    block('call', 'history', 28, 0.96, { group: 'step-1' }),
    block('result', 'history', 55, 0.98, { group: 'step-1' }),
  ];
}

const ids = (blocks: readonly ContextBlock[]) => blocks.map((kept) => kept.id);

describe('a turn’s steps the history’s grant cannot hold (decision 074)', () => {
  const input = (extra: Partial<SelectInput> = {}): SelectInput => ({
    // The knowledge layer's one block does not fit its grant: its 140 tokens go unused.
    blocks: [block('k1', 'knowledge__context', 150, 0.9), ...history()],
    plan: { allocations: { 'knowledge__context-src': 140, history: 60 }, unallocated: 0 },
    pinnedBudget: 0,
    layerOrder: ['knowledge__context', 'history'],
    ...extra,
  });

  it('take what the other layers left of their grants, and only that', () => {
    const before = selectBlocks(input());
    // Without the rule: the steps (83 tokens) do not fit the history's 60, and nothing else is
    // sent in their place — 200 tokens of the plan go unused.
    expect(ids(before.kept)).toEqual([]);
    const after = selectBlocks(input({ isStep }));
    expect(ids(after.kept)).toEqual(['call', 'result']);
    // The history is granted exactly what its steps lack (older messages get none of it) …
    expect(after.layers.find((layer) => layer.layer === 'history')).toMatchObject({
      grantTokens: 83,
      usedTokens: 83,
    });
    // … and the knowledge layer keeps (and drops) what it did before; what the steps took of its
    // grant is no longer its grant, so the compact stage cannot trim a block into it as well.
    expect(after.layers.find((layer) => layer.layer === 'knowledge__context')).toEqual({
      ...before.layers.find((layer) => layer.layer === 'knowledge__context'),
      grantTokens: 140 - 23,
    });
    expect(after.dropped.map((entry) => [entry.block.id, entry.reason])).toEqual([
      ['k1', { type: 'over-budget', grantTokens: 140 }],
      ['h2', { type: 'over-budget', grantTokens: 83 }],
      ['h1', { type: 'over-budget', grantTokens: 83 }],
    ]);
  });

  it('take what the pinned blocks left of the tokens set aside for them', () => {
    const pinned = block('todo', 'todo__context', 91, 1, { pinned: true });
    const base = {
      blocks: [pinned, ...history()],
      plan: { allocations: { history: 10 }, unallocated: 0 },
      pinnedBudget: 75,
      layerOrder: ['todo__context', 'history'],
    };
    // The pinned block does not fit its 75 tokens: they are unused room.
    expect(ids(selectBlocks({ ...base, isStep }).kept)).toEqual([]);
    const selection = selectBlocks({ ...base, isStep, pinnedReserved: 75 });
    expect(ids(selection.kept)).toEqual(['call', 'result']);
    expect(selection.dropped[0]).toEqual({
      block: pinned,
      reason: { type: 'pinned-over-budget', budgetTokens: 75 },
    });
  });

  it('take the frame of a layer that sends nothing, and leave that layer no room to trim into', () => {
    const selection = selectBlocks(
      input({
        isStep,
        // The history lacks 23 tokens; the knowledge layer sends nothing, so its frame (and its
        // 140 unused tokens) would be free — unless the compact stage trimmed its block into them.
        layerFrames: { tokens: 5, layers: new Set(['knowledge__context']) },
      }),
    );
    expect(ids(selection.kept)).toEqual(['call', 'result']);
    expect(selection.layers.find((layer) => layer.layer === 'knowledge__context')).toMatchObject({
      grantTokens: 0,
      usedTokens: 0,
    });
  });

  it('change nothing when the history’s grant holds them', () => {
    const roomy = input({
      plan: { allocations: { 'knowledge__context-src': 140, history: 120 }, unallocated: 0 },
    });
    expect(selectBlocks({ ...roomy, isStep })).toEqual(selectBlocks(roomy));
  });

  it('are dropped when the unused room cannot hold them either', () => {
    const selection = selectBlocks(
      input({ isStep, plan: { allocations: { 'knowledge__context-src': 10, history: 60 }, unallocated: 5 } }),
    );
    expect(ids(selection.kept)).toEqual([]);
    // The grant grew by all that was unused (10 + 5), not more.
    expect(selection.layers.find((layer) => layer.layer === 'history')?.grantTokens).toBe(75);
  });
});

describe('a turn’s steps at the end of a long history run', () => {
  it('take the unused room too when they are plain messages (no tool group), selected unit by unit', () => {
    // 40 history messages of 10 tokens (one carried run), the last two the turn's steps.
    const blocks = [
      block('k1', 'knowledge__context', 150, 0.9),
      ...Array.from({ length: 40 }, (_, index) => block(`m${index}`, 'history', 10, (index + 1) / 41)),
    ];
    const steps = new Set(['m38', 'm39']);
    const selection = selectBlocks({
      blocks,
      plan: { allocations: { 'knowledge__context-src': 140, history: 15 }, unallocated: 0 },
      pinnedBudget: 0,
      layerOrder: ['knowledge__context', 'history'],
      isStep: (candidate) => steps.has(candidate.id),
    });
    expect(ids(selection.kept)).toEqual(['m38', 'm39']);
  });
});

describe('a grant that is a sum of shares', () => {
  it('holds the whole count it adds up to, less a rounding error', () => {
    // Shares of a budget are real numbers: the tight-window bench met a history grant of
    // 236.99999999999997 for steps sized to it, 237 tokens.
    const grant = 83 - 64 * Number.EPSILON;
    expect(grant).toBeLessThan(83);
    const selection = selectBlocks({
      blocks: history().map(({ group: _group, ...entry }) => entry),
      plan: { allocations: { history: grant }, unallocated: 0 },
      pinnedBudget: 0,
    });
    expect(ids(selection.kept)).toEqual(['call', 'result']);
  });
});

const LAYERS = ['knowledge__context', 'todo__context', 'history'];
const other = fc.record({
  layer: fc.constantFrom('knowledge__context', 'todo__context'),
  tokens: fc.integer({ min: 1, max: 80 }),
  priority: fc.integer({ min: 0, max: 20 }).map((value) => value / 20),
});

describe('selectBlocks with steps, properties', () => {
  it('never exceeds the plan, keeps every other layer as before, and drops steps only for want of room', () => {
    fc.assert(
      fc.property(
        fc.array(other, { maxLength: 12 }),
        fc.array(fc.integer({ min: 1, max: 60 }), { maxLength: 12 }),
        fc.array(fc.integer({ min: 1, max: 60 }), { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 0, max: 400 }),
        fc.tuple(fc.nat(5), fc.nat(5), fc.nat(5), fc.nat(5)),
        (others, older, steps, budget, shares) => {
          const blocks: ContextBlock[] = others.map((entry, index) =>
            block(`o${index}`, entry.layer, entry.tokens, entry.priority),
          );
          const count = older.length + steps.length;
          older.forEach((tokens, index) => {
            blocks.push(block(`h${index}`, 'history', tokens, (index + 1) / (count + 1)));
          });
          const stepIds = new Set<string>();
          steps.forEach((tokens, index) => {
            const id = `s${index}`;
            stepIds.add(id);
            // Call and result pairs share a group, as a tool step's do.
            blocks.push(
              block(id, 'history', tokens, (older.length + index + 1) / (count + 1), {
                group: `g${Math.floor(index / 2)}`,
              }),
            );
          });
          const total = shares.reduce((sum, share) => sum + share, 0) || 1;
          const allocations = {
            'knowledge__context-src': (budget * shares[0]) / total,
            'todo__context-src': (budget * shares[1]) / total,
            history: (budget * shares[2]) / total,
          };
          const plan = { allocations, unallocated: (budget * shares[3]) / total };
          // What the plan hands out (all of `budget`, or nothing when every share is 0).
          const planned = Object.values(allocations).reduce((sum, tokens) => sum + tokens, plan.unallocated);
          const base: SelectInput = { blocks, plan, pinnedBudget: 0, layerOrder: LAYERS };
          const without = selectBlocks(base);
          const withSteps = selectBlocks({ ...base, isStep: (candidate) => stepIds.has(candidate.id) });
          const used = withSteps.kept.reduce((sum, kept) => sum + kept.tokens, 0);
          expect(used).toBeLessThanOrEqual(planned + 1e-9);
          const notHistory = (selection: typeof without) =>
            selection.kept.filter((kept) => kept.layer !== 'history').map((kept) => kept.id);
          expect(notHistory(withSteps)).toEqual(notHistory(without));
          // No layer is left more room than it had, and none a grant below what it uses.
          for (const layer of withSteps.layers) {
            expect(layer.usedTokens).toBeLessThanOrEqual(layer.grantTokens + 1e-9);
            const plain = without.layers.find((entry) => entry.layer === layer.layer);
            if (layer.layer !== 'history' && plain !== undefined)
              expect(layer.grantTokens - layer.usedTokens).toBeLessThanOrEqual(
                plain.grantTokens - plain.usedTokens + 1e-9,
              );
          }
          const kept = new Set(ids(withSteps.kept));
          for (const id of ids(without.kept)) expect(kept.has(id)).toBe(true);
          const stepTokens = steps.reduce((sum, tokens) => sum + tokens, 0);
          const othersUsed = withSteps.kept
            .filter((kept) => kept.layer !== 'history')
            .reduce((sum, kept) => sum + kept.tokens, 0);
          if (stepTokens <= planned - othersUsed - 1e-9)
            for (const id of stepIds) expect(kept.has(id)).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });
});
