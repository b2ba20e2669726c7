import type { ContextBlock } from './block.ts';
import { dropHistoryInChunks } from './chunk-history.ts';
import type { CompileOptions } from './compile-types.ts';
import type { GatheredBlocks } from './gather-blocks.ts';
import { withWindowDrops } from './history-window.ts';
import type { ResolvedCall } from './resolve-call.ts';
import { type Selection, selectBlocks } from './select.ts';
import { withUnreachable } from './unreachable-history.ts';

/** Tokens counted between two blocks of one layer when they are joined. */
export const SEPARATOR_TOKENS = 1;

/** Selects one call's blocks (see {@link createCallSelector}). */
export interface CallSelector {
  /** History chunk size in tokens (0: no chunking). */
  readonly chunkTokens: number;
  /**
   * Selects among `blocks` with `extraReserve` more tokens held back (a retry's overshoot):
   * the kept and dropped blocks, and the history a chunked cut dropped on top.
   */
  select(
    blocks: readonly ContextBlock[],
    extraReserve: number,
  ): { selection: Selection; chunked: ContextBlock[] };
}

/**
 * Stage 3, select: plans the budget with the fixed tokens (and pinned blocks) reserved, keeps
 * the best blocks per layer, adds the unreachable history and the history older than the
 * window to the drops, and widens a history cut to the next chunk boundary (counted from the
 * window's start: the window's history is what may be cut).
 */
export function createCallSelector(
  call: ResolvedCall,
  gathered: GatheredBlocks,
  options: CompileOptions,
): CallSelector {
  const { historyCandidates, firstStep, windowed } = call;
  const { firstPlan, pinnedWanted, unreachable, unreachableTokens } = gathered;
  const chunkTokens = Math.floor(call.budgetPreview * (options.historyChunkRatio ?? 1 / 3));
  return {
    chunkTokens,
    select(blocks, extraReserve) {
      const reserve = call.fixedTokens + extraReserve;
      const pinnedBudget = Math.max(0, firstPlan.inputBudget - reserve);
      const fixed = reserve + Math.min(pinnedWanted, pinnedBudget);
      const plan = call.budget.allocate({ ...gathered.allocateInput, fixedTokens: fixed });
      const selection = selectBlocks({
        blocks,
        plan,
        pinnedBudget,
        sourcePriorities: gathered.sourcePriorities,
        layerOrder: gathered.layerOrder,
        separatorTokens: SEPARATOR_TOKENS,
      });
      const reachable =
        unreachable.length === 0 ? selection : withUnreachable(selection, unreachable, unreachableTokens);
      const full =
        windowed.length === 0
          ? reachable
          : withWindowDrops(reachable, windowed, options.maxHistoryMessages ?? 0);
      if (chunkTokens <= 0) return { selection: full, chunked: [] };
      const chunked = dropHistoryInChunks(
        full,
        historyCandidates,
        chunkTokens,
        firstStep < 0 ? historyCandidates.length - 1 : firstStep,
      );
      return { selection: chunked.selection, chunked: chunked.added };
    },
  };
}
