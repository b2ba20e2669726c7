import type { ContextBlock } from './block.ts';
import type { DroppedBlock, DropReason, Selection } from './select.ts';

/**
 * Widens a history cut to the next chunk boundary, so the kept history starts at the same
 * message for many calls and a provider's prompt cache keeps hitting (dropping the oldest
 * message every turn moves the start — and invalidates the cache — on every call).
 *
 * Boundaries sit where the running token count of `history` (oldest first) crosses a multiple
 * of `chunkTokens`, never inside a group (a tool call and its results). They depend only on
 * the history before them, so they do not move as the history grows. When the selection
 * dropped the oldest `cut` messages for lack of room, every kept message before the first
 * boundary ≥ `cut` is dropped too (same reason). The newest message is never dropped here.
 * Returns the selection unchanged when no history was dropped for room.
 */
export function dropHistoryInChunks(
  selection: Selection,
  history: readonly ContextBlock[],
  chunkTokens: number,
  /** The widened cut never passes this index (e.g. the first message of the current turn). */
  limit: number = history.length - 1,
  /**
   * What the caller knows of the drops: the first `history.slice(0, known.oldest)` are among
   * the drops after the first `known.scan` (history that could never fit), and no later drop
   * sits at or past `known.oldest`. Only the first `scan` drops are then located.
   */
  known?: {
    scan: number;
    oldest: number;
    /**
     * `tokensBefore[i]`: the tokens of `history[0..i)` (whole numbers), when carried over and
     * no block has a group: the boundary is found in the sums, no block is read.
     */
    tokensBefore?: Float64Array | undefined;
  },
): { selection: Selection; added: ContextBlock[] } {
  if (!(chunkTokens > 0) || history.length === 0) return { selection, added: [] };
  let reason: DropReason | undefined;
  let cut = 0;
  const locate = historyLocator(history);
  const dropped = selection.dropped;
  const scan = known === undefined ? dropped.length : Math.min(known.scan, dropped.length);
  for (let index = 0; index < scan; index++) {
    const entry = dropped[index] as DroppedBlock;
    if (entry.block.layer !== 'history' || entry.reason.type !== 'over-budget') continue;
    reason ??= entry.reason;
    cut = Math.max(cut, locate(entry.block) + 1);
  }
  if (known !== undefined && known.oldest > 0) {
    // The oldest messages were dropped as history that could never fit: the cut is past them.
    cut = Math.max(cut, known.oldest);
    for (let index = scan; reason === undefined && index < dropped.length; index++) {
      const entry = dropped[index] as DroppedBlock;
      if (entry.block.layer === 'history' && entry.reason.type === 'over-budget') reason = entry.reason;
    }
  }
  if (reason === undefined) return { selection, added: [] };
  const sums = known?.tokensBefore;
  let boundary =
    sums !== undefined && sums.length === history.length + 1
      ? boundaryBySums(sums, cut, chunkTokens)
      : boundaryByBlocks(history, cut, chunkTokens);
  boundary = Math.min(boundary, limit);
  if (boundary <= cut || boundary >= history.length) return { selection, added: [] };
  return dropHistoryRange(selection, history, cut, boundary, reason, sums);
}

/**
 * The first chunk boundary after `cut` (−1: none, or the cut sits on one): the first block
 * from `cut` on whose start falls in a later chunk than the block before it, never inside a group.
 */
function boundaryByBlocks(history: readonly ContextBlock[], cut: number, chunkTokens: number): number {
  let boundary = -1;
  let start = 0;
  let previousChunk = 0;
  let pending = false;
  for (let index = 0; index < history.length; index++) {
    const block = history[index] as ContextBlock;
    const chunk = Math.floor(start / chunkTokens);
    const startsChunk = chunk > previousChunk;
    previousChunk = chunk;
    start += block.tokens;
    if (index < cut) continue;
    if (startsChunk) pending = true;
    const inGroup = block.group !== undefined && history[index - 1]?.group === block.group;
    if (!pending || inGroup) continue;
    // At the cut itself: it already sits on a boundary, nothing to widen.
    if (index > cut) boundary = index;
    break;
  }
  return boundary;
}

/**
 * {@link boundaryByBlocks} from running sums (no groups): the blocks from `cut` on stay in the
 * chunk of the block before `cut` until the first that starts in a later one.
 */
export function boundaryBySums(tokensBefore: Float64Array, cut: number, chunkTokens: number): number {
  const count = tokensBefore.length - 1;
  const chunk = cut === 0 ? 0 : Math.floor((tokensBefore[cut - 1] as number) / chunkTokens);
  let index = cut;
  while (index < count && Math.floor((tokensBefore[index] as number) / chunkTokens) <= chunk) index++;
  return index === cut || index >= count ? -1 : index;
}

/**
 * Drops the kept history blocks from `from` up to (not including) `to` (positions in
 * `history`) with `reason`, and frees their tokens in the history layer's grant: a cut
 * widened past what did not fit. `added` lists the blocks dropped here. `tokensBefore`: the
 * history's running sums (see {@link dropHistoryInChunks}), which give a whole range's tokens
 * without reading its blocks (a chunk of a long history is hundreds of them).
 */
export function dropHistoryRange(
  selection: Selection,
  history: readonly ContextBlock[],
  from: number,
  to: number,
  reason: DropReason,
  tokensBefore?: Float64Array,
): { selection: Selection; added: ContextBlock[] } {
  if (to <= from) return { selection, added: [] };
  const contiguous = keptRange(selection.kept, history, from, to);
  let kept: ContextBlock[];
  let added: ContextBlock[];
  if (contiguous >= 0) {
    // The whole range is kept, in order (the usual cut): copies sized once, no block read.
    added = history.slice(from, to);
    const before = selection.kept;
    kept = new Array<ContextBlock>(before.length - (to - from));
    for (let index = 0; index < contiguous; index++) kept[index] = before[index] as ContextBlock;
    for (let index = contiguous + to - from; index < before.length; index++)
      kept[index - (to - from)] = before[index] as ContextBlock;
  } else {
    const locate = historyLocator(history);
    const taken: ContextBlock[] = [];
    kept = selection.kept.filter((block) => {
      if (block.layer !== 'history') return true;
      const at = locate(block);
      if (at < from || at >= to) return true;
      taken.push(block);
      return false;
    });
    added = taken;
  }
  if (added.length === 0) return { selection, added };
  const freed =
    contiguous >= 0 && tokensBefore !== undefined && tokensBefore.length === history.length + 1
      ? (tokensBefore[to] as number) - (tokensBefore[from] as number)
      : added.reduce((sum, block) => sum + block.tokens, 0);
  const earlier = selection.dropped;
  const dropped = new Array<DroppedBlock>(earlier.length + added.length);
  for (let index = 0; index < earlier.length; index++) dropped[index] = earlier[index] as DroppedBlock;
  for (let index = 0; index < added.length; index++)
    dropped[earlier.length + index] = { block: added[index] as ContextBlock, reason };
  const layers = selection.layers.map((grant) =>
    grant.layer === 'history' ? { ...grant, usedTokens: Math.max(0, grant.usedTokens - freed) } : grant,
  );
  return { selection: { ...selection, kept, dropped, layers }, added };
}

/**
 * Where `history[from..to)` sits in `kept` as one run in order (−1: it does not). Block ids
 * are unique within a compile, so no other kept block is located in the range then.
 */
function keptRange(
  kept: readonly ContextBlock[],
  history: readonly ContextBlock[],
  from: number,
  to: number,
): number {
  const at = kept.indexOf(history[from] as ContextBlock);
  if (at < 0 || at + to - from > kept.length) return -1;
  for (let offset = 1; offset < to - from; offset++) {
    if (!Object.is(kept[at + offset], history[from + offset])) return -1;
  }
  return at;
}

/**
 * The position in `history` of a history block: its `metadata.index` when the block sits
 * there (every block the history was made into does), else the last position of a block with
 * its id (−1: none). Positions instead of a set of every id: a long history is then read by
 * pointer, not hashed string by string on every compile.
 */
function historyLocator(history: readonly ContextBlock[]): (block: ContextBlock) => number {
  let byId: Map<string, number> | undefined;
  return (block) => {
    const index = block.metadata.index;
    if (typeof index === 'number' && history[index] === block) return index;
    if (byId === undefined) {
      byId = new Map();
      for (let at = 0; at < history.length; at++) byId.set((history[at] as ContextBlock).id, at);
    }
    return byId.get(block.id) ?? -1;
  };
}
