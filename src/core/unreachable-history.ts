import type { ContextBlock } from './block.ts';
import type { DropReason, Selection } from './select.ts';

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
): { reachable: readonly ContextBlock[]; unreachable: readonly ContextBlock[]; unreachableTokens: number } {
  let used = 0;
  let cut = blocks.length;
  while (cut > 0 && used <= budgetTokens) used += (blocks[--cut] as ContextBlock).tokens;
  if (cut === 0) return { reachable: blocks, unreachable: [], unreachableTokens: 0 };
  const groups = new Set<string>();
  for (let index = cut; index < blocks.length; index++) {
    const group = blocks[index]?.group;
    if (group !== undefined) groups.add(group);
  }
  if (groups.size > 0) {
    for (let index = 0; index < cut; index++) {
      const group = blocks[index]?.group;
      if (group !== undefined && groups.has(group)) {
        cut = index;
        break;
      }
    }
  }
  const unreachable = blocks.slice(0, cut);
  let unreachableTokens = 0;
  for (let index = 0; index < unreachable.length; index++)
    unreachableTokens += (unreachable[index] as ContextBlock).tokens;
  return { reachable: blocks.slice(cut), unreachable, unreachableTokens };
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
  const reason: DropReason = Object.freeze({ type: 'over-budget', grantTokens: grant?.grantTokens ?? 0 });
  for (let index = unreachable.length - 1; index >= 0; index--) {
    selection.dropped.push({ block: unreachable[index] as ContextBlock, reason });
  }
  return selection;
}
