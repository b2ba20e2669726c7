import type { ContextBlock } from './block.ts';
import { boundaryBySums, dropHistoryInChunks, dropHistoryRange } from './chunk-history.ts';
import type { CompileOptions } from './compile-types.ts';
import type { GatheredBlocks } from './gather-blocks.ts';
import {
  assertHistoryKeepRatio,
  DEFAULT_HISTORY_KEEP_RATIO,
  planForwardCut,
  storedCutIndex,
} from './history-cut.ts';
import { withWindowDrops } from './history-window.ts';
import type { ResolvedCall } from './resolve-call.ts';
import { type DropReason, historyCut, type SelectInput, type Selection, selectBlocks } from './select.ts';
import { runDrops } from './select-history-run.ts';
import { withUnreachable } from './unreachable-history.ts';

/** Tokens counted between two blocks of one layer when they are joined. */
export const SEPARATOR_TOKENS = 1;

/** Selects one call's blocks (see {@link createCallSelector}). */
export interface CallSelector {
  /** History chunk size in tokens (0: no chunking, or a stored forward cut plans the cut). */
  readonly chunkTokens: number;
  /**
   * Selects among `blocks` with `extraReserve` more tokens held back (a retry's overshoot):
   * the kept and dropped blocks, and the history a chunked cut dropped on top.
   */
  select(blocks: readonly ContextBlock[], extraReserve: number): CallSelection;
  /**
   * The `historyDropped` that {@link CallSelector.select} would give for the same arguments,
   * when the history is cut by position (no window, stored cut or steps; the history one run,
   * its running sums known), without making the selection's lists; undefined otherwise.
   */
  historyDropped(blocks: readonly ContextBlock[], extraReserve: number): number | undefined;
}

/** One selection of a call (see {@link CallSelector}). */
export interface CallSelection {
  selection: Selection;
  /** History a chunked cut dropped on top of what did not fit. */
  chunked: ContextBlock[];
  /**
   * When known by position: the history dropped over budget is exactly
   * `historyCandidates[0..historyDropped)` (what could never fit, what the selection left out
   * of its history run, and the chunked cut), so a later stage takes it from the candidates
   * (and their running sums) instead of reading each drop.
   */
  historyDropped?: number;
  /**
   * With `historyDropped`: where the history's drops sit in `selection.dropped`, as `[from,
   * to)` pairs in order (flat) — every history drop, and nothing else.
   */
  historyEntries?: readonly number[];
}

/**
 * Stage 3, select: plans the budget with the fixed tokens (and pinned blocks) reserved, keeps
 * the best blocks per layer, adds the unreachable history and the history older than the
 * window to the drops, and widens a history cut to the next chunk boundary (counted from the
 * window's start: the window's history is what may be cut). With a stored cut
 * (`options.historyCut`) the history never starts before the stored message — what precedes
 * it is dropped like history that did not fit — and a call that must cut further cuts at a
 * turn start that leaves `historyKeepRatio` of the room (see `planForwardCut`).
 */
export function createCallSelector(
  call: ResolvedCall,
  gathered: GatheredBlocks,
  options: CompileOptions,
): CallSelector {
  const { historyCandidates, firstStep, windowed } = call;
  const { firstPlan, pinnedWanted, unreachable, unreachableTokens } = gathered;
  const store = options.historyCut;
  assertHistoryKeepRatio(options.historyKeepRatio);
  const chunkTokens =
    store === undefined ? Math.floor(call.budgetPreview * (options.historyChunkRatio ?? 1 / 3)) : 0;
  const end = firstStep < 0 ? historyCandidates.length : firstStep;
  const limit = firstStep < 0 ? historyCandidates.length - 1 : firstStep;
  const storedAt =
    store === undefined
      ? 0
      : Math.min(
          Math.max(0, limit),
          storedCutIndex({
            history: historyCandidates,
            storedId: store.get(),
            queryId: (call.queryInHistory ?? call.query)?.id,
            end,
          }),
        );
  const behind = new Set<string>();
  for (let index = 0; index < storedAt; index++) behind.add((historyCandidates[index] as ContextBlock).id);
  const selectInput = (blocks: readonly ContextBlock[], extraReserve: number): SelectInput => {
    const reserve = call.fixedTokens + extraReserve;
    const pinnedBudget = Math.max(0, firstPlan.inputBudget - reserve);
    const fixed = reserve + Math.min(pinnedWanted, pinnedBudget);
    const plan = call.budget.allocate({ ...gathered.allocateInput, fixedTokens: fixed });
    return {
      blocks:
        behind.size === 0
          ? blocks
          : blocks.filter((block) => block.layer !== 'history' || !behind.has(block.id)),
      plan,
      pinnedBudget,
      sourcePriorities: gathered.sourcePriorities,
      layerOrder: gathered.layerOrder,
      separatorTokens: SEPARATOR_TOKENS,
      ...(firstStep < 0
        ? {}
        : { isStep: call.isStep, pinnedReserved: fixed - reserve, layerFrames: call.layerFrames }),
    };
  };
  return {
    chunkTokens,
    historyDropped(blocks, extraReserve) {
      const sums = call.historyTokensBefore;
      if (store !== undefined || windowed.length > 0 || firstStep >= 0) return undefined;
      if (sums === undefined || sums.length !== historyCandidates.length + 1) return undefined;
      const run = historyCut(selectInput(blocks, extraReserve));
      const oldest = unreachable.length;
      if (run === undefined || historyCandidates[oldest] !== run.first) return undefined;
      // What `select` and `dropHistoryInChunks` make of it: the cut past what never fit and
      // the run's drops, widened to the next chunk boundary (never past the newest message).
      const cut = oldest + run.cut;
      if (chunkTokens <= 0 || cut === 0) return cut;
      const boundary = Math.min(boundaryBySums(sums, cut, chunkTokens), historyCandidates.length - 1);
      return boundary <= cut || boundary >= historyCandidates.length ? cut : boundary;
    },
    select(blocks, extraReserve) {
      const selection = selectBlocks(selectInput(blocks, extraReserve));
      const own = selection.dropped.length;
      const fromRun = runDrops(selection);
      const reachable =
        unreachable.length === 0 ? selection : withUnreachable(selection, unreachable, unreachableTokens);
      const full =
        windowed.length === 0
          ? reachable
          : withWindowDrops(reachable, windowed, options.maxHistoryMessages ?? 0);
      if (store !== undefined) return cutForward(full);
      // The history run is the reachable history, right after what could never fit.
      const oldest = unreachable.length;
      const prefix =
        fromRun !== undefined &&
        windowed.length === 0 &&
        firstStep < 0 &&
        historyCandidates[oldest] === fromRun.first
          ? oldest + fromRun.cut
          : undefined;
      // The run's drops where the selection put them, then what never fit and the chunked cut
      // at the end (each appended): every history drop, in order.
      const entries = (): number[] => {
        const run = fromRun as { at: number; cut: number };
        const end = full.dropped.length;
        return run.cut === 0 ? [own, end] : [run.at, run.at + run.cut, own, end];
      };
      if (chunkTokens <= 0)
        return prefix === undefined
          ? { selection: full, chunked: [] }
          : { selection: full, chunked: [], historyDropped: prefix, historyEntries: entries() };
      const chunked = dropHistoryInChunks(
        full,
        historyCandidates,
        chunkTokens,
        firstStep < 0 ? historyCandidates.length - 1 : firstStep,
        // The unreachable history is the oldest messages; the window's drops are older still.
        // When the history's drops are known by position, none of them is located.
        prefix === undefined
          ? { scan: own, oldest: unreachable.length, tokensBefore: call.historyTokensBefore }
          : { scan: 0, oldest: prefix, tokensBefore: call.historyTokensBefore },
      );
      const added = chunked.added;
      // The chunked cut drops the kept blocks from the cut on: right after the prefix, in order.
      const widened =
        prefix !== undefined &&
        (added.length === 0 ||
          (added[0] === historyCandidates[prefix] &&
            added[added.length - 1] === historyCandidates[prefix + added.length - 1]))
          ? prefix + added.length
          : undefined;
      if (widened === undefined) return { selection: chunked.selection, chunked: added };
      const end = chunked.selection.dropped.length;
      const run = fromRun as { at: number; cut: number };
      return {
        selection: chunked.selection,
        chunked: added,
        historyDropped: widened,
        historyEntries: run.cut === 0 ? [own, end] : [run.at, run.at + run.cut, own, end],
      };
    },
  };

  /** The stored cut's drops, then a forward cut when history beyond it did not fit either. */
  function cutForward(selection: Selection): CallSelection {
    let grant = selection.layers.find((layer) => layer.layer === 'history');
    const overBudget = selection.dropped.find(
      (entry) => entry.block.layer === 'history' && entry.reason.type === 'over-budget',
    );
    const reason: DropReason =
      overBudget?.reason ?? Object.freeze({ type: 'over-budget', grantTokens: grant?.grantTokens ?? 0 });
    if (behind.size > 0) {
      let tokens = 0;
      for (let index = 0; index < storedAt; index++) {
        const block = historyCandidates[index] as ContextBlock;
        tokens += block.tokens;
        selection.dropped.push({ block, reason });
      }
      if (grant === undefined) {
        grant = { layer: 'history', grantTokens: 0, usedTokens: 0, demandTokens: 0 };
        selection.layers.push(grant);
      }
      grant.demandTokens += tokens;
    }
    const to = planForwardCut({
      selection,
      history: historyCandidates,
      from: storedAt,
      end,
      limit,
      keepRatio: options.historyKeepRatio ?? DEFAULT_HISTORY_KEEP_RATIO,
    });
    // Only blocks the selection kept are dropped here: what the cut added on top.
    const widened = dropHistoryRange(selection, historyCandidates, storedAt, to, reason);
    return { selection: widened.selection, chunked: widened.added };
  }
}
