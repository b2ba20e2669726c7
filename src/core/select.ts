import type { ContextBlock } from './block.ts';
import { historyRun, runCut, selectWithRun } from './select-history-run.ts';
import type { DroppedBlock, DropReason, LayerGrant, SelectInput, Selection } from './select-types.ts';
import {
  dedupe,
  FIT_EPSILON,
  fillByRank,
  keepPinned,
  rankOf,
  toUnits,
  type Units,
  unitsByLayer,
} from './select-units.ts';

export type { DroppedBlock, DropReason, LayerGrant, SelectInput, Selection } from './select-types.ts';
export { dedupKey } from './select-units.ts';

/**
 * Chooses blocks under a budget. Pure and deterministic; never throws for "over budget" —
 * what does not fit is returned as dropped, with a reason.
 *
 * 1. Blocks of the same fact are one block: the higher priority (then the earlier) copy
 *    stays. The same fact is the same memory entry or message id, else equal fingerprints.
 *    A history block is never dropped as a duplicate, and a message the history carries is
 *    sent there: other layers' blocks naming it are dropped as its duplicates.
 * 2. Blocks sharing a `group` form one unit (kept or dropped together).
 * 3. Pinned units are kept first, highest priority first, within `pinnedBudget`.
 * 4. Each layer's grant is the sum of its sources' allocations. A layer that needs less
 *    than its grant releases the rest to a pool (plus the plan's unallocated tokens); layers
 *    that need more draw on the pool in order of their best source priority.
 * 5. Within a layer, units are taken in priority order (ties: later position first) until
 *    the first that does not fit; it and every lower unit are dropped. So nothing dropped
 *    outranks anything kept in the same layer, and a bigger budget never drops what a
 *    smaller one kept.
 * 6. A turn's own tool steps (`isStep`) that the history's grant cannot hold take, on top of
 *    it, the tokens every other layer left unused — the pool's rest, what each hungry layer's
 *    first unfitting unit left of its grant, what the pinned blocks left of the tokens the
 *    plan set aside for them (`pinnedReserved`), the frames of layers that keep nothing
 *    (`layerFrames`) — before the history is filled
 *    (decision 074). Only then: the other layers keep what they kept, and a call whose steps
 *    fit is selected as before.
 *
 * Blocks dropped for the same cause share one (frozen) reason object.
 */
export function selectBlocks(input: SelectInput): Selection {
  const run = historyRun(input.blocks);
  // A run that ends with the turn's steps (steps without tool calls, ungrouped) is selected unit
  // by unit: rule 6 is `selectEach`'s.
  const withSteps = run !== undefined && input.isStep?.(input.blocks[run.end - 1] as ContextBlock) === true;
  return run === undefined || withSteps ? selectEach(input) : selectWithRun(input, run);
}

/**
 * Where {@link selectBlocks} would cut the history, when it selects the history as one
 * carried run: the run's first block and how many of its oldest blocks it drops over budget
 * (the only history it drops). Undefined when the history is not one run. Makes no lists.
 */
export function historyCut(input: SelectInput): { first: ContextBlock; cut: number } | undefined {
  const run = historyRun(input.blocks);
  return run === undefined ? undefined : runCut(input, run);
}

/** {@link selectBlocks} unit by unit, without a carried-over history run (tests compare the two). */
export function selectEach(input: SelectInput): Selection {
  const separator = input.separatorTokens ?? 0;
  const dropped: DroppedBlock[] = [];
  const unique = dedupe(input.blocks, dropped);
  const duplicates = dropped.length;
  const layerSources = new Map<string, Set<string>>();
  const units = toUnits(unique, separator, layerSources);
  const { tokens } = units;
  const picks = keepPinned(units, unique, input.pinnedBudget, dropped);
  const { kept, keep, pinnedTokens } = picks;

  const layerOrder = input.layerOrder ?? [];
  const byLayer = unitsByLayer(units, unique);
  const usedSources = new Set<string>();
  for (const sources of layerSources.values()) for (const source of sources) usedSources.add(source);
  let pool = input.plan.unallocated;
  for (const [source, tokens] of Object.entries(input.plan.allocations)) {
    if (!usedSources.has(source)) pool += tokens;
  }

  const grants: LayerGrant[] = [];
  const hungry: { layer: string; priority: number; grant: LayerGrant; units: Int32Array }[] = [];
  for (const [layer, layerUnits] of byLayer) {
    let grant = 0;
    let priority = 0;
    for (const source of layerSources.get(layer) ?? []) {
      grant += input.plan.allocations[source] ?? 0;
      priority = Math.max(priority, input.sourcePriorities?.[source] ?? 0.5);
    }
    let demand = 0;
    for (let at = 0; at < layerUnits.length; at++) demand += tokens[layerUnits[at] as number] as number;
    const entry: LayerGrant = { layer, grantTokens: grant, usedTokens: 0, demandTokens: demand };
    grants.push(entry);
    if (demand <= grant) {
      pool += grant - demand;
      entry.usedTokens = demand;
      for (let at = 0; at < layerUnits.length; at++) keep(layerUnits[at] as number);
    } else {
      hungry.push({ layer, priority, grant: entry, units: layerUnits });
    }
  }

  hungry.sort((a, b) => b.priority - a.priority || rankOf(layerOrder, a.layer) - rankOf(layerOrder, b.layer));
  let steps: { grant: LayerGrant; units: Int32Array; tokens: number } | undefined;
  for (const { layer, grant, units: layerUnits } of hungry) {
    const extra = Math.min(pool, grant.demandTokens - grant.grantTokens);
    pool -= extra;
    grant.grantTokens += extra;
    if (layer === 'history' && input.isStep !== undefined) {
      const tokens = stepTokens(layerUnits, units, unique, input.isStep);
      if (tokens > grant.grantTokens + FIT_EPSILON) {
        // Filled last, with what the others leave (rule 6).
        steps = { grant, units: layerUnits, tokens };
        continue;
      }
    }
    const reason: DropReason = Object.freeze({ type: 'over-budget', grantTokens: grant.grantTokens });
    grant.usedTokens = fillByRank(layerUnits, grant.grantTokens, units, picks, reason);
  }
  if (steps !== undefined) {
    const { grant } = steps;
    // What nobody uses, up to what the steps lack: the pool's rest, what the pinned blocks
    // left of their reserve, the frames of layers that keep nothing, then what each other
    // hungry layer's fill left of its grant, the last-served first — taken from its grant, so
    // the compact stage does not trim a block into it too.
    let lacking = steps.tokens - grant.grantTokens;
    const take = (available: number) => {
      const taken = Math.min(Math.max(0, available), lacking);
      lacking -= taken;
      grant.grantTokens += taken;
      return taken;
    };
    take(pool);
    take((input.pinnedReserved ?? 0) - pinnedTokens);
    // A layer whose frame the steps take must stay unsent: what its grant has left goes to the
    // steps too, and none stays for the compact stage to trim a block into.
    for (const layer of unsentLayers(input.layerFrames, unique, kept)) {
      if (lacking <= 0) break;
      take(input.layerFrames?.tokens ?? 0);
      const emptied = grants.find((entry) => entry.layer === layer);
      if (emptied === undefined || emptied === grant) continue;
      take(emptied.grantTokens - emptied.usedTokens);
      emptied.grantTokens = emptied.usedTokens;
    }
    for (let at = hungry.length - 1; at >= 0 && lacking > 0; at--) {
      const other = (hungry[at] as (typeof hungry)[number]).grant;
      if (other !== grant) other.grantTokens -= take(other.grantTokens - other.usedTokens);
    }
    const reason: DropReason = Object.freeze({ type: 'over-budget', grantTokens: grant.grantTokens });
    grant.usedTokens = fillByRank(steps.units, grant.grantTokens, units, picks, reason);
  }

  grants.sort((a, b) => rankOf(layerOrder, a.layer) - rankOf(layerOrder, b.layer));
  // Every unit is kept or dropped: with no drop past deduplication, everything unique is
  // kept (a tool step whose history fits), and `unique` is this call's own array.
  if (dropped.length === duplicates) {
    // `unique` is the input itself when nothing was a duplicate: the caller's array is not handed back.
    const own = unique === input.blocks ? unique.slice() : (unique as ContextBlock[]);
    return { kept: own, dropped, layers: grants, pinnedTokens };
  }
  const keptBlocks: ContextBlock[] = [];
  for (let index = 0; index < unique.length; index++) {
    if (kept[index] === 1) keptBlocks.push(unique[index] as ContextBlock);
  }
  return { kept: keptBlocks, dropped, layers: grants, pinnedTokens };
}

/**
 * Tokens of the history's units that are the turn's steps: the newest units (a history's
 * priorities rise with position, the steps come last), read from the end while they are steps.
 */
function stepTokens(
  layerUnits: Int32Array,
  units: Units,
  blocks: readonly ContextBlock[],
  isStep: (block: ContextBlock) => boolean,
): number {
  let tokens = 0;
  for (let at = layerUnits.length - 1; at >= 0; at--) {
    const unit = layerUnits[at] as number;
    if (!isStep(blocks[units.first[unit] as number] as ContextBlock)) break;
    tokens += units.tokens[unit] as number;
  }
  return tokens;
}

/** The layers of `frames.layers` that keep no block (read before the history is filled): not sent. */
function unsentLayers(
  frames: SelectInput['layerFrames'],
  blocks: readonly ContextBlock[],
  kept: Uint8Array,
): string[] {
  if (frames === undefined || frames.layers.size === 0) return [];
  const sent = new Set<string>();
  for (let index = 0; index < blocks.length; index++) {
    const block = blocks[index] as ContextBlock;
    if (kept[index] === 1 && block.layer !== 'history') sent.add(block.layer);
  }
  return [...frames.layers].filter((layer) => !sent.has(layer));
}
