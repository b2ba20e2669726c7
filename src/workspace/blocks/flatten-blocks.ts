import type { Block } from './block.ts';

/** All blocks of a tree in document order (each parent before its children). */
export function flattenBlocks(blocks: readonly Block[]): Block[] {
  const flat: Block[] = [];
  const visit = (list: readonly Block[]): void => {
    for (const block of list) {
      flat.push(block);
      visit(block.children);
    }
  };
  visit(blocks);
  return flat;
}

/** The block with V1 id or V2 short id `id`, or `undefined` (exact match only). */
export function getBlockById(blocks: readonly Block[], id: string): Block | undefined {
  for (const block of flattenBlocks(blocks)) {
    if (block.id === id || block.shortId === id) return block;
  }
  return undefined;
}
