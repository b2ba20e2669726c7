import type { ContextBlock } from './block.ts';
import type { DroppedBlock, DropReason } from './select-types.ts';

/**
 * The selection units, one per standalone block or group, as parallel arrays (a long history
 * makes thousands; arrays of numbers cost no object per unit). Unit `u` starts at block
 * position `first[u]`, which is also its order.
 */
export interface Units {
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

/** The units' kept flags and their keep/drop/rank helpers, with the pinned units selected first. */
export function keepPinned(
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
export function unitsByLayer(units: Units, blocks: readonly ContextBlock[]): Map<string, Int32Array> {
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

export const MESSAGE_KEY = 'message:';

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

export function dedupe(blocks: readonly ContextBlock[], dropped: DroppedBlock[]): readonly ContextBlock[] {
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
export function toUnits(
  blocks: readonly ContextBlock[],
  separator: number,
  layerSources: Map<string, Set<string>>,
): Units {
  const size = blocks.length;
  // One buffer for the five arrays (each typed array's own buffer is an allocation outside
  // the heap): the doubles first, then the 32-bit and the byte arrays, each aligned.
  const buffer = new ArrayBuffer(size * 22);
  const units: Units = {
    count: 0,
    first: new Int32Array(buffer, size * 16, size),
    tokens: new Float64Array(buffer, 0, size),
    priority: new Float64Array(buffer, size * 8, size),
    pinned: new Uint8Array(buffer, size * 20, size),
    grouped: new Uint8Array(buffer, size * 21, size),
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
export function rank(
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

/**
 * Grants are shares of a budget (real numbers), block counts whole: a unit fits when it is
 * within this of its grant, so a share that should add up to a whole count (236.99999999999997
 * for 237) does not drop the unit it was sized for.
 */
export const FIT_EPSILON = 1e-6;

export function rankOf(order: readonly string[], layer: string): number {
  const index = order.indexOf(layer);
  return index < 0 ? order.length : index;
}

/**
 * Takes a layer's units in rank order into its grant until the first that does not fit; it
 * and every lower unit are dropped with `reason` (so nothing dropped outranks anything kept).
 * Returns the tokens used.
 */
export function fillByRank(
  layerUnits: Int32Array,
  grantTokens: number,
  units: Units,
  picks: Pick<ReturnType<typeof keepPinned>, 'keep' | 'drop' | 'byRank'>,
  reason: DropReason,
): number {
  const { tokens, priority } = units;
  let used = 0;
  let full = false;
  const ranked = rank(layerUnits, priority, picks.byRank);
  for (let at = 0; at < ranked.length; at++) {
    const unit = ranked[at] as number;
    const unitTokens = tokens[unit] as number;
    if (!full && used + unitTokens <= grantTokens + FIT_EPSILON) {
      used += unitTokens;
      picks.keep(unit);
    } else {
      full = true;
      picks.drop(unit, reason);
    }
  }
  return used;
}
