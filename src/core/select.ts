import type { ContextBlock } from './block.ts';
import type { BudgetPlan } from './budget.ts';

/** Why a block was left out. Every dropped block carries exactly one. */
export type DropReason =
  /**
   * Another block of the same fact is kept: `of` is its id. `messageId` when both name that
   * memory entry or message (a history block always wins then); absent for equal content.
   */
  | { type: 'duplicate'; of: string; messageId?: string }
  | { type: 'over-budget'; grantTokens: number }
  /** Older than the history window: only the newest `maxMessages` messages are sent (`maxHistoryMessages`). */
  | { type: 'history-window'; maxMessages: number }
  | { type: 'pinned-over-budget'; budgetTokens: number }
  | { type: 'share-disabled' }
  | { type: 'summarized'; into: string }
  /** Behind a long session's cut and sent anyway: recalled for this query into `into` (decision 040). */
  | { type: 'recalled'; into: string }
  /**
   * Behind a long session's cut, carried by no summary text that is sent, and not recalled for
   * this query: in the session's conversation index, found by the model's `tool` (decision 040).
   */
  | { type: 'recallable'; tool: string };

/** A block that did not make it, with its reason. */
export interface DroppedBlock {
  block: ContextBlock;
  reason: DropReason;
}

/** Input of {@link selectBlocks}. */
export interface SelectInput {
  /** Candidate blocks of compactable layers, in collection order. */
  blocks: readonly ContextBlock[];
  /** Allocations per source name, and the unallocated pool. */
  plan: Pick<BudgetPlan, 'allocations' | 'unallocated'>;
  /** Tokens pinned blocks may use in all (what the input budget leaves after fixed layers). */
  pinnedBudget: number;
  /** Priority of each source (0..1); layers with higher-priority sources draw on the pool first. */
  sourcePriorities?: Readonly<Record<string, number>>;
  /** Layer order, used to break priority ties deterministically. */
  layerOrder?: readonly string[];
  /** Tokens charged per block for the separator that joins it to its neighbours. Default 0. */
  separatorTokens?: number;
}

/** Per-layer accounting of a selection. */
export interface LayerGrant {
  layer: string;
  /** Σ allocations of the layer's sources plus what it drew from the pool. */
  grantTokens: number;
  /** Tokens of the kept unpinned blocks (with separators). */
  usedTokens: number;
  /** Tokens all its unpinned candidates wanted. */
  demandTokens: number;
}

/** Output of {@link selectBlocks}. */
export interface Selection {
  /** Kept blocks, in their input order. */
  kept: ContextBlock[];
  dropped: DroppedBlock[];
  layers: LayerGrant[];
  /** Tokens used by kept pinned blocks. */
  pinnedTokens: number;
}

/**
 * The selection units, one per standalone block or group, as parallel arrays (a long history
 * makes thousands; arrays of numbers cost no object per unit). Unit `u` starts at block
 * position `first[u]`, which is also its order.
 */
interface Units {
  count: number;
  first: Int32Array;
  tokens: Float64Array;
  priority: Float64Array;
  pinned: Uint8Array;
  /** 1 when the unit is a group with more blocks (in `rest`). */
  grouped: Uint8Array;
  /** Positions of a group's other blocks, by unit. */
  rest: Map<number, number[]>;
}

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
 *
 * Blocks dropped for the same cause share one (frozen) reason object.
 */
export function selectBlocks(input: SelectInput): Selection {
  const run = historyRun(input.blocks);
  return run === undefined ? selectEach(input) : selectWithRun(input, run);
}

/** {@link selectBlocks} unit by unit, without a carried-over history run (tests compare the two). */
export function selectEach(input: SelectInput): Selection {
  const separator = input.separatorTokens ?? 0;
  const dropped: DroppedBlock[] = [];
  const unique = dedupe(input.blocks, dropped);
  const duplicates = dropped.length;
  const layerSources = new Map<string, Set<string>>();
  const units = toUnits(unique, separator, layerSources);
  const { tokens, priority } = units;
  const { kept, keep, drop, byRank, pinnedTokens } = keepPinned(units, unique, input.pinnedBudget, dropped);

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
  for (const { grant, units: layerUnits } of hungry) {
    const extra = Math.min(pool, grant.demandTokens - grant.grantTokens);
    pool -= extra;
    grant.grantTokens += extra;
    const reason: DropReason = Object.freeze({ type: 'over-budget', grantTokens: grant.grantTokens });
    let used = 0;
    let full = false;
    const ranked = rank(layerUnits, priority, byRank);
    for (let at = 0; at < ranked.length; at++) {
      const unit = ranked[at] as number;
      const unitTokens = tokens[unit] as number;
      if (!full && used + unitTokens <= grant.grantTokens) {
        used += unitTokens;
        keep(unit);
      } else {
        full = true;
        drop(unit, reason);
      }
    }
    grant.usedTokens = used;
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

/** The units' kept flags and their keep/drop/rank helpers, with the pinned units selected first. */
function keepPinned(
  units: Units,
  unique: readonly ContextBlock[],
  pinnedBudget: number,
  dropped: DroppedBlock[],
) {
  const { first, tokens, priority } = units;
  const byRank = (a: number, b: number) =>
    (priority[b] as number) - (priority[a] as number) || (first[b] as number) - (first[a] as number);
  // Kept flags by position: a compile selects thousands of fresh blocks, and a Set keyed by
  // them would first have to give every one an identity hash.
  const kept = new Uint8Array(unique.length);
  const keep = (unit: number) => {
    kept[first[unit] as number] = 1;
    if (units.grouped[unit] === 1) for (const index of units.rest.get(unit) ?? []) kept[index] = 1;
  };
  const drop = (unit: number, reason: DropReason) => {
    dropped.push({ block: unique[first[unit] as number] as ContextBlock, reason });
    if (units.grouped[unit] === 1)
      for (const index of units.rest.get(unit) ?? [])
        dropped.push({ block: unique[index] as ContextBlock, reason });
  };
  let pinnedTokens = 0;
  const pinned: number[] = [];
  for (let unit = 0; unit < units.count; unit++) if (units.pinned[unit] === 1) pinned.push(unit);
  pinned.sort(byRank);
  const pinnedReason: DropReason = Object.freeze({ type: 'pinned-over-budget', budgetTokens: pinnedBudget });
  for (const unit of pinned) {
    const unitTokens = tokens[unit] as number;
    if (pinnedTokens + unitTokens <= pinnedBudget) {
      pinnedTokens += unitTokens;
      keep(unit);
    } else {
      drop(unit, pinnedReason);
    }
  }
  return { kept, keep, drop, byRank, pinnedTokens };
}

/**
 * The unpinned units of each layer, in position order, by layer in the order the layers first
 * appear: one array of unit numbers sorted by layer (a counting sort), each layer a view of it
 * — no list grown unit by unit for a long history.
 */
function unitsByLayer(units: Units, blocks: readonly ContextBlock[]): Map<string, Int32Array> {
  const layerOf = new Int32Array(units.count);
  const names: string[] = [];
  const counts: number[] = [];
  const indexOf = new Map<string, number>();
  let lastLayer: string | undefined;
  let lastIndex = -1;
  let total = 0;
  for (let unit = 0; unit < units.count; unit++) {
    if (units.pinned[unit] === 1) {
      layerOf[unit] = -1;
      continue;
    }
    const layer = (blocks[units.first[unit] as number] as ContextBlock).layer;
    if (layer !== lastLayer) {
      lastLayer = layer;
      let index = indexOf.get(layer);
      if (index === undefined) {
        index = names.length;
        indexOf.set(layer, index);
        names.push(layer);
        counts.push(0);
      }
      lastIndex = index;
    }
    layerOf[unit] = lastIndex;
    counts[lastIndex] = (counts[lastIndex] as number) + 1;
    total++;
  }
  const sorted = new Int32Array(total);
  const next = new Int32Array(names.length);
  for (let index = 1; index < names.length; index++)
    next[index] = (next[index - 1] as number) + (counts[index - 1] as number);
  const byLayer = new Map<string, Int32Array>();
  names.forEach((name, index) => {
    const from = next[index] as number;
    byLayer.set(name, sorted.subarray(from, from + (counts[index] as number)));
  });
  for (let unit = 0; unit < units.count; unit++) {
    const index = layerOf[unit] as number;
    if (index < 0) continue;
    sorted[next[index] as number] = unit;
    next[index] = (next[index] as number) + 1;
  }
  return byLayer;
}

const MESSAGE_KEY = 'message:';

/**
 * What makes two blocks the same fact: the memory entry or message they were made from
 * (`metadata.messageId`, or the id of `metadata.message`) when they name one — L1, L2,
 * inherited and retrieval sources word one entry differently — else the content fingerprint.
 */
export function dedupKey(block: ContextBlock): string {
  const { messageId, message } = block.metadata;
  if (typeof messageId === 'string' && messageId.length > 0) return `${MESSAGE_KEY}${messageId}`;
  if (typeof message === 'object' && message !== null && typeof (message as { id?: unknown }).id === 'string')
    return `${MESSAGE_KEY}${(message as { id: string }).id}`;
  return block.fingerprint;
}

function dedupe(blocks: readonly ContextBlock[], dropped: DroppedBlock[]): readonly ContextBlock[] {
  // History turns are never deduplicated (two "yes" answers are two turns), so they skip the map.
  const best = new Map<string, ContextBlock>();
  const keys = new Map<ContextBlock, string>();
  let byMessage = false;
  for (let index = 0; index < blocks.length; index++) {
    const block = blocks[index] as ContextBlock;
    if (block.layer === 'history') continue;
    const key = dedupKey(block);
    keys.set(block, key);
    if (key.startsWith(MESSAGE_KEY)) byMessage = true;
    const current = best.get(key);
    if (current === undefined || outranks(block, current)) best.set(key, block);
  }
  // A message sent in the history is that fact's copy: the history block wins over every
  // knowledge block naming the same message (L2, inherited, retrieval) — it is the message
  // itself, in its place in the conversation, kept or dropped with its turn.
  if (byMessage) {
    for (const block of blocks) {
      if (block.layer !== 'history') continue;
      const key = dedupKey(block);
      if (best.has(key)) best.set(key, block);
    }
  }
  // Nothing is a duplicate (the common case): the input is the unique list, not copied.
  let all = true;
  for (const [block, key] of keys) {
    if (best.get(key) !== block) {
      all = false;
      break;
    }
  }
  if (all) return blocks;
  const unique: ContextBlock[] = [];
  for (const block of blocks) {
    if (block.layer === 'history') {
      unique.push(block);
      continue;
    }
    const key = keys.get(block) ?? block.fingerprint;
    const winner = best.get(key);
    if (winner === block) unique.push(block);
    else if (winner !== undefined) dropped.push({ block, reason: duplicateOf(winner, key) });
  }
  return unique;
}

function duplicateOf(winner: ContextBlock, key: string): DropReason {
  return key.startsWith(MESSAGE_KEY)
    ? { type: 'duplicate', of: winner.id, messageId: key.slice(MESSAGE_KEY.length) }
    : { type: 'duplicate', of: winner.id };
}

function outranks(a: ContextBlock, b: ContextBlock): boolean {
  const pinnedA = a.pinned === true ? 1 : 0;
  const pinnedB = b.pinned === true ? 1 : 0;
  return pinnedA > pinnedB || (pinnedA === pinnedB && a.priority > b.priority);
}

/**
 * One unit per standalone block or group, in block order; also records, per layer, the
 * sources of its unpinned blocks (in the same pass: a long history is read once).
 */
function toUnits(
  blocks: readonly ContextBlock[],
  separator: number,
  layerSources: Map<string, Set<string>>,
): Units {
  const size = blocks.length;
  const units: Units = {
    count: 0,
    first: new Int32Array(size),
    tokens: new Float64Array(size),
    priority: new Float64Array(size),
    pinned: new Uint8Array(size),
    grouped: new Uint8Array(size),
    rest: new Map(),
  };
  // Groups by layer, then by group id: the ids are strings the blocks already hold (their hash
  // is cached), so no key string is built per block.
  let byGroup: Map<string, Map<string, number>> | undefined;
  let groupLayer: string | undefined;
  let layerGroups: Map<string, number> | undefined;
  let lastLayer: string | undefined;
  let lastSource: string | undefined;
  for (let order = 0; order < size; order++) {
    const block = blocks[order] as ContextBlock;
    if (block.pinned !== true && (block.layer !== lastLayer || block.source !== lastSource)) {
      lastLayer = block.layer;
      lastSource = block.source;
      const set = layerSources.get(block.layer) ?? new Set<string>();
      set.add(block.source);
      layerSources.set(block.layer, set);
    }
    const tokens = block.tokens + (block.layer === 'history' ? 0 : separator);
    if (block.group !== undefined) {
      byGroup ??= new Map();
      if (block.layer !== groupLayer || layerGroups === undefined) {
        groupLayer = block.layer;
        layerGroups = byGroup.get(block.layer);
        if (layerGroups === undefined) {
          layerGroups = new Map();
          byGroup.set(block.layer, layerGroups);
        }
      }
      const existing = layerGroups.get(block.group);
      if (existing !== undefined) {
        const rest = units.rest.get(existing);
        if (rest === undefined) units.rest.set(existing, [order]);
        else rest.push(order);
        units.grouped[existing] = 1;
        units.tokens[existing] = (units.tokens[existing] as number) + tokens;
        units.priority[existing] = Math.max(units.priority[existing] as number, block.priority);
        if (block.pinned === true) units.pinned[existing] = 1;
        continue;
      }
      layerGroups.set(block.group, units.count);
    }
    const unit = units.count++;
    units.first[unit] = order;
    units.tokens[unit] = tokens;
    units.priority[unit] = block.priority;
    units.pinned[unit] = block.pinned === true ? 1 : 0;
  }
  return units;
}

/**
 * `units` (in position order) ranked by `byRank`: priority, then later position first. A
 * history's priorities rise with position, so its ranking is its reverse — found in one pass
 * instead of a sort of thousands of units every compile.
 */
function rank(
  units: Int32Array,
  priority: Float64Array,
  byRank: (a: number, b: number) => number,
): Int32Array {
  for (let index = 1; index < units.length; index++) {
    if ((priority[units[index] as number] as number) < (priority[units[index - 1] as number] as number))
      return Int32Array.from(Array.from(units).sort(byRank));
  }
  // The view belongs to this call's own array: reversed in place.
  return units.reverse();
}

function rankOf(order: readonly string[], layer: string): number {
  const index = order.indexOf(layer);
  return index < 0 ? order.length : index;
}

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

/** Below this many blocks a run is not worth carrying over (and a small selection does not evict a long one). */
const MIN_RUN = 32;

/**
 * The history run of `blocks` when every history-layer block is in one run that can be
 * selected from prefix sums (see {@link HistoryChain}) and no other block names a message
 * (a history block then wins over it, which needs each history block's key); else undefined.
 */
function historyRun(blocks: readonly ContextBlock[]): HistoryRun | undefined {
  const count = blocks.length;
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
    while (end < count && at < known.length && blocks[end] === known[at]) {
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
  return { start, end, offset, chain: current };
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
function selectWithRun(input: SelectInput, run: HistoryRun): Selection {
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
  const { first, tokens, priority } = units;
  const { kept, keep, drop, byRank, pinnedTokens } = keepPinned(units, unique, input.pinnedBudget, dropped);

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
          if (runTokens(middle, length) <= grant.grantTokens) high = middle;
          else low = middle + 1;
        }
        cut = low;
      }
      grant.usedTokens = runTokens(cut, length);
      for (let index = start + cut - 1; index >= start; index--)
        dropped.push({ block: blocks[index] as ContextBlock, reason });
      continue;
    }
    let used = 0;
    let full = false;
    const ranked = rank(layerUnits, priority, byRank);
    for (let at = 0; at < ranked.length; at++) {
      const unit = ranked[at] as number;
      const unitTokens = tokens[unit] as number;
      if (!full && used + unitTokens <= grant.grantTokens) {
        used += unitTokens;
        keep(unit);
      } else {
        full = true;
        drop(unit, reason);
      }
    }
    grant.usedTokens = used;
  }

  grants.sort((a, b) => rankOf(layerOrder, a.layer) - rankOf(layerOrder, b.layer));
  const keptBlocks: ContextBlock[] = [];
  for (let index = 0; index < splitAt; index++) {
    if (kept[index] === 1) keptBlocks.push(unique[index] as ContextBlock);
  }
  for (let index = start + cut; index < end; index++) keptBlocks.push(blocks[index] as ContextBlock);
  for (let index = splitAt; index < unique.length; index++) {
    if (kept[index] === 1) keptBlocks.push(unique[index] as ContextBlock);
  }
  return { kept: keptBlocks, dropped, layers: grants, pinnedTokens };
}
