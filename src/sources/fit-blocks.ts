import type { ContextBlock } from '../core/index.ts';

/**
 * Keeps blocks in the given order while they fit in `maxTokens`; a block that does not fit
 * is skipped (a smaller one after it may still fit). Blocks sharing a `group` are taken or
 * skipped together, at the position of the group's first block.
 */
export function fitBlocks(blocks: readonly ContextBlock[], maxTokens: number): ContextBlock[] {
  const units: ContextBlock[][] = [];
  const byGroup = new Map<string, ContextBlock[]>();
  for (const block of blocks) {
    if (block.group === undefined) {
      units.push([block]);
      continue;
    }
    let unit = byGroup.get(block.group);
    if (unit === undefined) {
      unit = [];
      byGroup.set(block.group, unit);
      units.push(unit);
    }
    unit.push(block);
  }
  const kept: ContextBlock[] = [];
  let remaining = maxTokens;
  for (const unit of units) {
    const tokens = unit.reduce((sum, block) => sum + block.tokens, 0);
    if (tokens > remaining) continue;
    kept.push(...unit);
    remaining -= tokens;
  }
  return kept;
}
