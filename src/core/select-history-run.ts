import type { ContextBlock } from './block.ts';
import type { DroppedBlock, DropReason, LayerGrant, SelectInput, Selection } from './select-types.ts';
import {
  dedupe,
  dedupKey,
  FIT_EPSILON,
  fillByRank,
  keepPinned,
  MESSAGE_KEY,
  rankOf,
  toUnits,
  unitsByLayer,
} from './select-units.ts';

/**
 * History blocks known to be one selectable run, carried over between selections (decision
 * 067): consecutive, unpinned, ungrouped history blocks of one source, priorities rising
 * strictly, whole token counts ≥ 0, and `prefix[i]` the tokens of `blocks[0..i)`. A
 * recompile after a new message selects among the same block objects plus one: they are
 * found by pointer, and only the new ones are read.
 */
interface HistoryChain {
  blocks: ContextBlock[];
  prefix: Float64Array;
  source: string;
}

let chain: HistoryChain | undefined;

/** Where a history run sits in a selection's blocks: `blocks[start..end)` is `chain.blocks[offset..]`. */
interface HistoryRun {
  start: number;
  end: number;
  offset: number;
  chain: HistoryChain;
}

/**
 * Per selection made from a history run: the run's first block, how many of its oldest
 * blocks it dropped (over budget) and where their entries begin among the drops, so a caller
 * that knows where the run sits among its history finds those drops by position (see
 * {@link runDrops}).
 */
const droppedFromRun = new WeakMap<Selection, RunDrops>();

/** See {@link runDrops}. */
export interface RunDrops {
  first: ContextBlock;
  /** The run's oldest `cut` blocks were dropped over budget. */
  cut: number;
  /** Their entries are `dropped[at..at + cut)`, newest first. */
  at: number;
}

/**
 * When `selection` was made from a history run (see {@link selectBlocks}): the run's first
 * block, the number of its oldest blocks dropped over budget — the only history blocks the
 * selection dropped — and where their entries sit. Undefined otherwise.
 */
export function runDrops(selection: Selection): RunDrops | undefined {
  return droppedFromRun.get(selection);
}

/** Below this many blocks a run is not worth carrying over (and a small selection does not evict a long one). */
const MIN_RUN = 32;

/**
 * The history run of `blocks` when every history-layer block is in one run that can be
 * selected from prefix sums (see {@link HistoryChain}) and no other block names a message
 * (a history block then wins over it, which needs each history block's key); else undefined.
 */
export function historyRun(blocks: readonly ContextBlock[]): HistoryRun | undefined {
  const count = blocks.length;
  const walked = lastWalk;
  // A copy of the blocks the last run was found in, with the chain as that run left it: the
  // same run, found without walking it again (a compile's second selection, over the pool
  // with its summary).
  if (
    walked !== undefined &&
    Object.is(walked.run.chain, chain) &&
    walked.run.chain.blocks.length === walked.chainLength &&
    sharesPrefix(blocks, walked.blocks, walked.run.end)
  ) {
    return runFrom(blocks, walked.run.start, walked.run.end, walked.run.offset, walked.run.chain);
  }
  let start = 0;
  while (start < count && (blocks[start] as ContextBlock).layer !== 'history') start++;
  if (count - start < MIN_RUN) return undefined;
  for (let index = 0; index < start; index++)
    if (namesMessage(blocks[index] as ContextBlock)) return undefined;
  const first = blocks[start] as ContextBlock;
  let current = chain;
  let offset = current === undefined ? -1 : current.blocks.indexOf(first);
  let end = start;
  if (current !== undefined && offset >= 0) {
    const known = current.blocks;
    let at = offset;
    while (end < count && at < known.length && Object.is(blocks[end], known[at])) {
      end++;
      at++;
    }
    // Left the chain before its end: another history shares its start; make a new chain.
    if (at < known.length && end < count && (blocks[end] as ContextBlock).layer === 'history') offset = -1;
  }
  if (current === undefined || offset < 0) {
    if (!runnable(first, undefined)) return undefined;
    current = {
      blocks: [first],
      prefix: new Float64Array(Math.max(64, count - start + 1)),
      source: first.source,
    };
    current.prefix[1] = first.tokens;
    offset = 0;
    end = start + 1;
  }
  return runFrom(blocks, start, end, offset, current);
}

/**
 * The run `blocks[start..end)` = `current.blocks[offset..]` (checked by pointer), extended by
 * the new blocks after it while they may, when no other history block follows it.
 */
function runFrom(
  blocks: readonly ContextBlock[],
  start: number,
  from: number,
  offset: number,
  current: HistoryChain,
): HistoryRun | undefined {
  const count = blocks.length;
  let end = from;
  // Past the chain's end: new blocks extend it while they may.
  if (offset + (end - start) === current.blocks.length) {
    while (end < count) {
      const block = blocks[end] as ContextBlock;
      if (!runnable(block, current)) break;
      extend(current, block);
      end++;
    }
  }
  for (let index = end; index < count; index++) {
    const block = blocks[index] as ContextBlock;
    if (block.layer === 'history' || namesMessage(block)) return undefined;
  }
  if (end - start < MIN_RUN) return undefined;
  chain = current;
  const run = { start, end, offset, chain: current };
  lastWalk = { blocks, run, chainLength: current.blocks.length };
  return run;
}

/** The last run found, the blocks it was found in and the chain's length then (see {@link historyRun}). */
let lastWalk: { blocks: readonly ContextBlock[]; run: HistoryRun; chainLength: number } | undefined;

/**
 * Lists made as a copy of another's first blocks (`withSummary`'s pool): `blocks` holds
 * `source[0..count)` at the same places. Neither list is changed afterwards.
 */
const copiedFrom = new WeakMap<readonly ContextBlock[], { source: readonly ContextBlock[]; count: number }>();

/** Notes that `copy` begins with `source`'s first `count` blocks (see {@link historyRun}). */
export function noteCopiedBlocks(
  copy: readonly ContextBlock[],
  source: readonly ContextBlock[],
  count: number,
): void {
  copiedFrom.set(copy, { source, count });
}

function sharesPrefix(
  blocks: readonly ContextBlock[],
  other: readonly ContextBlock[],
  length: number,
): boolean {
  if (Object.is(blocks, other)) return true;
  const copied = copiedFrom.get(blocks);
  return copied !== undefined && Object.is(copied.source, other) && copied.count >= length;
}

function runnable(block: ContextBlock, onto: HistoryChain | undefined): boolean {
  if (block.layer !== 'history' || block.pinned === true || block.group !== undefined) return false;
  if (!(Number.isInteger(block.tokens) && block.tokens >= 0 && block.tokens < 2 ** 40)) return false;
  if (onto === undefined) return true;
  const last = onto.blocks[onto.blocks.length - 1] as ContextBlock;
  return block.source === onto.source && block.priority > last.priority;
}

function extend(onto: HistoryChain, block: ContextBlock): void {
  const length = onto.blocks.length;
  if (length + 1 >= onto.prefix.length) {
    const grown = new Float64Array(onto.prefix.length * 2);
    grown.set(onto.prefix);
    onto.prefix = grown;
  }
  onto.prefix[length + 1] = (onto.prefix[length] as number) + block.tokens;
  onto.blocks.push(block);
}

function namesMessage(block: ContextBlock): boolean {
  return dedupKey(block).startsWith(MESSAGE_KEY);
}

/**
 * {@link selectEach}'s result with the history run selected from its prefix sums: the other
 * blocks are selected unit by unit; the run is the history layer (its only blocks), whose
 * units rank newest first, so what it keeps is the longest newest part within its grant.
 */
export function selectWithRun(input: SelectInput, run: HistoryRun): Selection {
  return selectRun(input, run, false).selection;
}

/**
 * How many of the history run's oldest blocks {@link selectWithRun} drops, and the run's first
 * block, without making its kept list or the run's drop entries (a caller that needs only where
 * the history is cut).
 */
export function runCut(input: SelectInput, run: HistoryRun): { first: ContextBlock; cut: number } {
  return selectRun(input, run, true);
}

function selectRun(
  input: SelectInput,
  run: HistoryRun,
  cutOnly: boolean,
): { selection: Selection; first: ContextBlock; cut: number } {
  const separator = input.separatorTokens ?? 0;
  const { start, end, offset } = run;
  const prefix = run.chain.prefix;
  const blocks = input.blocks;
  const length = end - start;
  const runTokens = (from: number, to: number) =>
    (prefix[offset + to] as number) - (prefix[offset + from] as number);
  const after = blocks.slice(end);
  const others = start === 0 ? after : blocks.slice(0, start).concat(after);
  const dropped: DroppedBlock[] = [];
  const unique = dedupe(others, dropped);
  // Unique blocks before the run: those not after it (few; usually none are after).
  let splitAt = unique.length;
  if (after.length > 0) {
    const later = new Set(after);
    for (let index = 0; index < unique.length; index++) {
      if (later.has(unique[index] as ContextBlock)) {
        splitAt = index;
        break;
      }
    }
  }
  const layerSources = new Map<string, Set<string>>();
  const units = toUnits(unique, separator, layerSources);
  const { first, tokens } = units;
  const picks = keepPinned(units, unique, input.pinnedBudget, dropped);
  const { kept, keep, pinnedTokens } = picks;

  const layerOrder = input.layerOrder ?? [];
  const historySource = run.chain.source;
  // The layers in the order they first appear, the history where its run starts.
  const byLayer: [string, Int32Array | undefined][] = [];
  for (const [layer, layerUnits] of unitsByLayer(units, unique)) {
    if (byLayer.length === 0 || byLayer.every(([name]) => name !== 'history')) {
      if ((first[layerUnits[0] as number] as number) >= splitAt) byLayer.push(['history', undefined]);
    }
    byLayer.push([layer, layerUnits]);
  }
  if (byLayer.every(([name]) => name !== 'history')) byLayer.push(['history', undefined]);
  const usedSources = new Set<string>([historySource]);
  for (const sources of layerSources.values()) for (const source of sources) usedSources.add(source);
  let pool = input.plan.unallocated;
  for (const [source, sourceTokens] of Object.entries(input.plan.allocations)) {
    if (!usedSources.has(source)) pool += sourceTokens;
  }

  const grants: LayerGrant[] = [];
  const hungry: { layer: string; priority: number; grant: LayerGrant; units: Int32Array | undefined }[] = [];
  let cut = 0;
  let dropsAt = -1;
  for (const [layer, layerUnits] of byLayer) {
    let grant = 0;
    let layerPriority = 0;
    const sources = layerUnits === undefined ? [historySource] : (layerSources.get(layer) ?? []);
    for (const source of sources) {
      grant += input.plan.allocations[source] ?? 0;
      layerPriority = Math.max(layerPriority, input.sourcePriorities?.[source] ?? 0.5);
    }
    let demand = 0;
    if (layerUnits === undefined) demand = runTokens(0, length);
    else for (let at = 0; at < layerUnits.length; at++) demand += tokens[layerUnits[at] as number] as number;
    const entry: LayerGrant = { layer, grantTokens: grant, usedTokens: 0, demandTokens: demand };
    grants.push(entry);
    if (demand <= grant) {
      pool += grant - demand;
      entry.usedTokens = demand;
      if (layerUnits !== undefined)
        for (let at = 0; at < layerUnits.length; at++) keep(layerUnits[at] as number);
    } else {
      hungry.push({ layer, priority: layerPriority, grant: entry, units: layerUnits });
    }
  }

  hungry.sort((a, b) => b.priority - a.priority || rankOf(layerOrder, a.layer) - rankOf(layerOrder, b.layer));
  for (const { grant, units: layerUnits } of hungry) {
    const extra = Math.min(pool, grant.demandTokens - grant.grantTokens);
    pool -= extra;
    grant.grantTokens += extra;
    const reason: DropReason = Object.freeze({ type: 'over-budget', grantTokens: grant.grantTokens });
    if (layerUnits === undefined) {
      // Newest first until one does not fit: the longest newest part within the grant.
      cut = length;
      if (grant.grantTokens >= 0) {
        let low = 0;
        let high = length;
        while (low < high) {
          const middle = (low + high) >>> 1;
          if (runTokens(middle, length) <= grant.grantTokens + FIT_EPSILON) high = middle;
          else low = middle + 1;
        }
        cut = low;
      }
      grant.usedTokens = runTokens(cut, length);
      if (cutOnly) continue;
      dropsAt = dropped.length;
      for (let index = start + cut - 1; index >= start; index--)
        dropped.push({ block: blocks[index] as ContextBlock, reason });
      continue;
    }
    grant.usedTokens = fillByRank(layerUnits, grant.grantTokens, units, picks, reason);
  }

  const runFirst = blocks[start] as ContextBlock;
  if (cutOnly)
    return { selection: { kept: [], dropped, layers: grants, pinnedTokens }, first: runFirst, cut };
  grants.sort((a, b) => rankOf(layerOrder, a.layer) - rankOf(layerOrder, b.layer));
  // Sized once (the kept history is most of it): no regrowing while a long run is copied.
  let keptOthers = 0;
  for (let index = 0; index < unique.length; index++) keptOthers += kept[index] as number;
  const keptBlocks = new Array<ContextBlock>(keptOthers + length - cut);
  let at = 0;
  for (let index = 0; index < splitAt; index++) {
    if (kept[index] === 1) keptBlocks[at++] = unique[index] as ContextBlock;
  }
  for (let index = start + cut; index < end; index++) keptBlocks[at++] = blocks[index] as ContextBlock;
  for (let index = splitAt; index < unique.length; index++) {
    if (kept[index] === 1) keptBlocks[at++] = unique[index] as ContextBlock;
  }
  const selection: Selection = { kept: keptBlocks, dropped, layers: grants, pinnedTokens };
  droppedFromRun.set(selection, { first: runFirst, cut, at: dropsAt < 0 ? dropped.length : dropsAt });
  return { selection, first: runFirst, cut };
}
