import type { ContextBlock } from './block.ts';
import type { DroppedBlock, DropReason, Selection } from './select.ts';

/**
 * Splits history blocks (oldest first, recency-ranked) at the oldest message that could
 * still be kept: the newest messages are summed until they exceed `budgetTokens`; every
 * message older than the one that crosses it is `unreachable` — no grant can exceed the
 * input budget, and selection keeps history newest first. A tool group is never split: the
 * cut moves to the group's oldest member. Unreachable blocks skip selection (a long session
 * drops most of its history, and selecting it would only confirm that).
 */
export function splitUnreachableHistory(
  blocks: readonly ContextBlock[],
  budgetTokens: number,
  /**
   * `tokensBefore[i]`: the tokens of `blocks[0..i)` (whole numbers), when the caller carries
   * them and no block has a group: the cut is then found in the sums, no block is read.
   */
  tokensBefore?: Float64Array,
): { reachable: readonly ContextBlock[]; unreachable: readonly ContextBlock[]; unreachableTokens: number } {
  if (tokensBefore !== undefined && tokensBefore.length === blocks.length + 1) {
    return splitBySums(blocks, budgetTokens, tokensBefore);
  }
  let used = 0;
  let cut = blocks.length;
  // The reachable blocks' groups are noted in the same walk (each block read once).
  let groups: Set<string> | undefined;
  while (cut > 0 && used <= budgetTokens) {
    const block = blocks[--cut] as ContextBlock;
    used += block.tokens;
    if (block.group !== undefined) {
      groups ??= new Set();
      groups.add(block.group);
    }
  }
  if (cut === 0) return { reachable: blocks, unreachable: [], unreachableTokens: 0 };
  if (groups !== undefined) {
    for (let index = 0; index < cut; index++) {
      const group = blocks[index]?.group;
      if (group !== undefined && groups.has(group)) {
        cut = index;
        break;
      }
    }
  }
  const unreachable = blocks.slice(0, cut);
  return { reachable: blocks.slice(cut), unreachable, unreachableTokens: tokensOf(unreachable) };
}

/**
 * {@link splitUnreachableHistory} from running sums: the walk from the newest block stops at
 * the first block (going back) whose suffix exceeds the budget; it is the last unreachable one.
 */
function splitBySums(
  blocks: readonly ContextBlock[],
  budgetTokens: number,
  tokensBefore: Float64Array,
): { reachable: readonly ContextBlock[]; unreachable: readonly ContextBlock[]; unreachableTokens: number } {
  const total = tokensBefore[blocks.length] as number;
  // The walk stops at the greatest `cut` whose suffix (total − tokensBefore[cut]) exceeds the
  // budget (0 when none does); suffixes only shrink as `cut` grows.
  let cut = 0;
  if (total - (tokensBefore[0] as number) > budgetTokens) {
    let high = blocks.length;
    while (cut < high) {
      const middle = (cut + high + 1) >>> 1;
      if (total - (tokensBefore[middle] as number) > budgetTokens) cut = middle;
      else high = middle - 1;
    }
  }
  if (cut === 0) return { reachable: blocks, unreachable: [], unreachableTokens: 0 };
  return {
    reachable: blocks.slice(cut),
    unreachable: blocks.slice(0, cut),
    unreachableTokens: tokensBefore[cut] as number,
  };
}

/** The last unreachable run summed, and its sum (see {@link tokensOf}). */
let lastSum: { blocks: readonly ContextBlock[]; tokens: number } | undefined;

/**
 * The blocks' tokens summed. When the last run summed is where these begin (the same block
 * objects, compared by pointer: a recompile after new messages moves the cut forward over the
 * same history blocks), its sum is carried over and only the blocks after it are read. Like
 * the selection's chain (decision 067), this trusts a block not to change once made.
 */
function tokensOf(blocks: readonly ContextBlock[]): number {
  let from = 0;
  let tokens = 0;
  const known = lastSum;
  if (known !== undefined && known.blocks.length <= blocks.length) {
    const limit = known.blocks.length;
    while (from < limit && Object.is(known.blocks[from], blocks[from])) from++;
    if (from === limit) tokens = known.tokens;
    else from = 0;
  }
  for (let index = from; index < blocks.length; index++) tokens += (blocks[index] as ContextBlock).tokens;
  lastSum = { blocks, tokens };
  return tokens;
}

/**
 * Adds the history that could never fit (see `splitUnreachableHistory`) to a selection, as
 * the history layer's over-budget drops — after the layer's own, newest first — and to its
 * demand: the same result a selection over every message gives.
 */
export function withUnreachable(
  selection: Selection,
  unreachable: readonly ContextBlock[],
  unreachableTokens: number,
): Selection {
  const grant = selection.layers.find((layer) => layer.layer === 'history');
  if (grant !== undefined) grant.demandTokens += unreachableTokens;
  const grantTokens = grant?.grantTokens ?? 0;
  // The entries of the last call whose blocks begin these (by pointer) under the same grant
  // are the entries this one would make: the second selection of a compile, and the next
  // compile over the same history, take them instead of one new entry per message.
  const known = lastDrops;
  let same = 0;
  if (known !== undefined && known.grantTokens === grantTokens) {
    const limit = Math.min(known.blocks.length, unreachable.length);
    while (same < limit && Object.is(known.blocks[same], unreachable[same])) same++;
  }
  const reason: DropReason =
    same > 0 && known !== undefined ? known.reason : Object.freeze({ type: 'over-budget', grantTokens });
  let entries: DroppedBlock[];
  if (known !== undefined && same === unreachable.length && same === known.entries.length) {
    entries = known.entries;
  } else {
    entries = new Array<DroppedBlock>(unreachable.length);
    for (let index = 0; index < unreachable.length; index++) {
      entries[index] =
        index < same && known !== undefined
          ? (known.entries[index] as DroppedBlock)
          : { block: unreachable[index] as ContextBlock, reason };
    }
  }
  lastDrops = { blocks: unreachable, grantTokens, reason, entries };
  // One array sized for both (pushing a long run onto the selection's drops regrows it).
  const own = selection.dropped;
  const dropped = new Array<DroppedBlock>(own.length + entries.length);
  for (let index = 0; index < own.length; index++) dropped[index] = own[index] as DroppedBlock;
  for (let index = 0; index < entries.length; index++)
    dropped[own.length + index] = entries[entries.length - 1 - index] as DroppedBlock;
  selection.dropped = dropped;
  return selection;
}

/** The unreachable drops of the last call (see {@link withUnreachable}), oldest first. */
let lastDrops:
  | { blocks: readonly ContextBlock[]; grantTokens: number; reason: DropReason; entries: DroppedBlock[] }
  | undefined;
