import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ContextBlock } from './block.ts';
import { type SelectInput, selectBlocks } from './select.ts';

const LAYERS = ['knowledge__context', 'todo__context', 'history'];

const blockArbitrary = fc.record({
  layer: fc.constantFrom(...LAYERS),
  tokens: fc.integer({ min: 1, max: 60 }),
  priority: fc.integer({ min: 0, max: 20 }).map((value) => value / 20),
  content: fc.integer({ min: 0, max: 40 }),
  pinned: fc.boolean().map((value) => value && Math.random() < 0.2),
  group: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
});

type RawBlock = typeof blockArbitrary extends fc.Arbitrary<infer T> ? T : never;

function toBlocks(raw: RawBlock[]): ContextBlock[] {
  return raw.map((entry, index) => {
    const block: ContextBlock = {
      id: `b${index}`,
      layer: entry.layer,
      source: entry.layer === 'history' ? 'history' : `${entry.layer}-src`,
      content: `c${entry.content}`,
      tokens: entry.tokens,
      priority: entry.priority,
      fingerprint: `f${entry.content}`,
      metadata: {},
    };
    if (entry.group !== undefined) block.group = `g${entry.group}`;
    return block;
  });
}

function inputFor(blocks: ContextBlock[], budget: number, shares: [number, number, number]): SelectInput {
  const total = shares.reduce((sum, share) => sum + share, 0) || 1;
  const allocations: Record<string, number> = {
    'knowledge__context-src': (budget * shares[0]) / total,
    'todo__context-src': (budget * shares[1]) / total,
    history: (budget * shares[2]) / total,
  };
  const allocated = Object.values(allocations).reduce((sum, value) => sum + value, 0);
  return {
    blocks,
    plan: { allocations, unallocated: Math.max(0, budget - allocated) },
    pinnedBudget: 0,
    layerOrder: LAYERS,
  };
}

const budgetArbitrary = fc.integer({ min: 0, max: 600 });
const sharesArbitrary = fc.tuple(
  fc.integer({ min: 0, max: 5 }),
  fc.integer({ min: 0, max: 5 }),
  fc.integer({ min: 0, max: 5 }),
);

/** The naive reference: with no pool, each layer independently keeps its best prefix that fits its grant. */
function referenceSelect(blocks: ContextBlock[], grants: Record<string, number>): Set<string> {
  const seen = new Map<string, ContextBlock>();
  for (const block of blocks) {
    if (block.layer === 'history') {
      seen.set(`history\u0000${block.id}`, block);
      continue;
    }
    const current = seen.get(block.fingerprint);
    if (current === undefined || block.priority > current.priority) seen.set(block.fingerprint, block);
  }
  const kept = new Set<string>();
  for (const layer of LAYERS) {
    const units: { ids: string[]; tokens: number; priority: number; order: number }[] = [];
    [...seen.values()]
      .filter((block) => block.layer === layer)
      .sort((a, b) => Number(a.id.slice(1)) - Number(b.id.slice(1)))
      .forEach((block, order) => {
        const unit =
          block.group === undefined
            ? undefined
            : units.find((entry) => entry.ids[0]?.startsWith(`${block.group}:`));
        if (unit !== undefined) {
          unit.ids.push(`${block.group}:${block.id}`);
          unit.tokens += block.tokens;
          unit.priority = Math.max(unit.priority, block.priority);
        } else {
          units.push({
            ids: [`${block.group ?? ''}:${block.id}`],
            tokens: block.tokens,
            priority: block.priority,
            order,
          });
        }
      });
    units.sort((a, b) => b.priority - a.priority || b.order - a.order);
    let used = 0;
    for (const unit of units) {
      if (used + unit.tokens > (grants[layer] ?? 0)) break;
      used += unit.tokens;
      for (const id of unit.ids) kept.add(id.split(':')[1] as string);
    }
  }
  return kept;
}

describe('selectBlocks properties', () => {
  it('never exceeds the budget', () => {
    fc.assert(
      fc.property(
        fc.array(blockArbitrary, { maxLength: 40 }),
        budgetArbitrary,
        sharesArbitrary,
        (raw, budget, shares) => {
          const blocks = toBlocks(raw).map((block) => ({ ...block, pinned: false }));
          const selection = selectBlocks(inputFor(blocks, budget, shares));
          const used = selection.kept.reduce((sum, block) => sum + block.tokens, 0);
          expect(used).toBeLessThanOrEqual(budget);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('drops nothing that outranks something kept in the same layer', () => {
    fc.assert(
      fc.property(
        fc.array(blockArbitrary, { maxLength: 40 }),
        budgetArbitrary,
        sharesArbitrary,
        (raw, budget, shares) => {
          const blocks = toBlocks(raw).map((block) => ({ ...block, pinned: false }));
          const selection = selectBlocks(inputFor(blocks, budget, shares));
          const dupes = new Set(
            selection.dropped
              .filter((entry) => entry.reason.type === 'duplicate')
              .map((entry) => entry.block.id),
          );
          const groupPriority = (block: ContextBlock) =>
            Math.max(
              ...blocks
                .filter(
                  (other) =>
                    !dupes.has(other.id) &&
                    other.layer === block.layer &&
                    block.group !== undefined &&
                    other.group === block.group,
                )
                .map((other) => other.priority),
              block.priority,
            );
          for (const entry of selection.dropped) {
            if (entry.reason.type !== 'over-budget') continue;
            for (const kept of selection.kept) {
              if (kept.layer !== entry.block.layer) continue;
              expect(groupPriority(entry.block)).toBeLessThanOrEqual(groupPriority(kept));
            }
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('never drops with a bigger budget a block a smaller budget kept', () => {
    fc.assert(
      fc.property(
        fc.array(blockArbitrary, { maxLength: 40 }),
        budgetArbitrary,
        fc.integer({ min: 0, max: 300 }),
        sharesArbitrary,
        (raw, budget, extra, shares) => {
          const blocks = toBlocks(raw);
          const small = selectBlocks({ ...inputFor(blocks, budget, shares), pinnedBudget: budget });
          const large = selectBlocks({
            ...inputFor(blocks, budget + extra, shares),
            pinnedBudget: budget + extra,
          });
          const largeIds = new Set(large.kept.map((block) => block.id));
          for (const block of small.kept) expect(largeIds.has(block.id)).toBe(true);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('is deterministic', () => {
    fc.assert(
      fc.property(
        fc.array(blockArbitrary, { maxLength: 40 }),
        budgetArbitrary,
        sharesArbitrary,
        (raw, budget, shares) => {
          const blocks = toBlocks(raw);
          expect(selectBlocks(inputFor(blocks, budget, shares))).toEqual(
            selectBlocks(inputFor(blocks, budget, shares)),
          );
        },
      ),
    );
  });

  it('keeps or drops every group whole', () => {
    fc.assert(
      fc.property(
        fc.array(blockArbitrary, { maxLength: 40 }),
        budgetArbitrary,
        sharesArbitrary,
        (raw, budget, shares) => {
          const blocks = toBlocks(raw);
          const selection = selectBlocks(inputFor(blocks, budget, shares));
          const keptIds = new Set(selection.kept.map((block) => block.id));
          const dupes = new Set(
            selection.dropped
              .filter((entry) => entry.reason.type === 'duplicate')
              .map((entry) => entry.block.id),
          );
          const groups = new Map<string, boolean[]>();
          for (const block of blocks) {
            if (block.group === undefined || dupes.has(block.id)) continue;
            const key = `${block.layer}/${block.group}`;
            groups.set(key, [...(groups.get(key) ?? []), keptIds.has(block.id)]);
          }
          for (const states of groups.values()) expect(new Set(states).size).toBeLessThanOrEqual(1);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('agrees with the naive reference selector when no budget is pooled', () => {
    fc.assert(
      fc.property(
        fc.array(blockArbitrary, { maxLength: 30 }),
        budgetArbitrary,
        sharesArbitrary,
        (raw, budget, shares) => {
          const blocks = toBlocks(raw).map((block) => ({ ...block, pinned: false }));
          const input = inputFor(blocks, budget, shares);
          // No pool: every layer wants more than its grant or has nothing to give.
          const grants: Record<string, number> = {
            knowledge__context: input.plan.allocations['knowledge__context-src'] ?? 0,
            todo__context: input.plan.allocations['todo__context-src'] ?? 0,
            history: input.plan.allocations.history ?? 0,
          };
          const noPool = selectBlocks({ ...input, plan: { ...input.plan, unallocated: 0 } });
          const poolFree =
            noPool.layers.every((layer) => layer.demandTokens >= layer.grantTokens) &&
            LAYERS.every(
              (layer) => grants[layer] === 0 || noPool.layers.some((entry) => entry.layer === layer),
            );
          fc.pre(poolFree);
          const expected = referenceSelect(blocks, grants);
          expect(new Set(noPool.kept.map((block) => block.id))).toEqual(expected);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('agrees with the naive reference when priorities rise with position, as a history’s do', () => {
    // Then a layer's ranking is its reverse order, found without a sort (decision 059).
    fc.assert(
      fc.property(
        fc.array(blockArbitrary, { maxLength: 40 }),
        budgetArbitrary,
        sharesArbitrary,
        (raw, budget, shares) => {
          const rising = LAYERS.flatMap((layer) => {
            const own = raw.filter((entry) => entry.layer === layer);
            const priorities = own.map((entry) => entry.priority).sort((a, b) => a - b);
            return own.map((entry, index) => ({ ...entry, priority: priorities[index] as number }));
          });
          const blocks = toBlocks(rising).map((block) => ({ ...block, pinned: false }));
          const input = inputFor(blocks, budget, shares);
          const grants: Record<string, number> = {
            knowledge__context: input.plan.allocations['knowledge__context-src'] ?? 0,
            todo__context: input.plan.allocations['todo__context-src'] ?? 0,
            history: input.plan.allocations.history ?? 0,
          };
          const noPool = selectBlocks({ ...input, plan: { ...input.plan, unallocated: 0 } });
          fc.pre(
            noPool.layers.every((layer) => layer.demandTokens >= layer.grantTokens) &&
              LAYERS.every(
                (layer) => grants[layer] === 0 || noPool.layers.some((entry) => entry.layer === layer),
              ),
          );
          expect(new Set(noPool.kept.map((block) => block.id))).toEqual(referenceSelect(blocks, grants));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('keeps one copy of equal content, the higher-priority one', () => {
    const blocks = toBlocks([
      { layer: 'knowledge__context', tokens: 5, priority: 0.2, content: 1, pinned: false, group: undefined },
      { layer: 'todo__context', tokens: 5, priority: 0.9, content: 1, pinned: false, group: undefined },
    ]);
    const selection = selectBlocks(inputFor(blocks, 100, [1, 1, 1]));
    expect(selection.kept.map((block) => block.id)).toEqual(['b1']);
    expect(selection.dropped[0]?.reason).toEqual({ type: 'duplicate', of: 'b1' });
  });
});
