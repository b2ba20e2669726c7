import type { ContextBlock } from './block.ts';

/**
 * The running token sums of `blocks`, the first `same + 1` taken from `known` (the same
 * blocks, by pointer) and the rest read from the blocks after them. Undefined when a count is
 * not a whole number in [0, 2⁴⁰) (sums are then exact in any order). When the blocks only
 * append to `known`'s, the sums are written after `known`'s in its buffer (sized with room to
 * spare) and the result is a longer view of it: the earlier views, each a prefix, still read
 * what they read, and nothing is copied.
 */
export function extendSums(
  known: Float64Array,
  blocks: readonly ContextBlock[],
  same: number,
): Float64Array | undefined {
  const length = blocks.length + 1;
  let sums: Float64Array;
  if (same + 1 === known.length && known.byteOffset === 0 && known.buffer.byteLength >= length * 8) {
    sums = new Float64Array(known.buffer, 0, length);
  } else {
    sums = new Float64Array(new ArrayBuffer(Math.max(64, Math.ceil(length * 1.25)) * 8), 0, length);
    sums.set(same + 1 === known.length ? known : known.subarray(0, same + 1));
  }
  for (let index = same; index < blocks.length; index++) {
    const tokens = (blocks[index] as ContextBlock).tokens;
    if (!(Number.isInteger(tokens) && tokens >= 0 && tokens < 2 ** 40)) return undefined;
    sums[index + 1] = (sums[index] as number) + tokens;
  }
  return sums;
}
