import type { ContextBlock } from './block.ts';
import {
  coveredPrefix,
  droppedHistory,
  droppedHistoryCount,
  droppedHistoryTokens,
  errorLines,
  SUMMARIZED_REASON,
  summarizeDropped,
  trimDropped,
  withSummary,
} from './compact.ts';
import type { CompileOptions, CompileRequest } from './compile-types.ts';
import type { GatheredBlocks } from './gather-blocks.ts';
import type { HistoryBlockMetadata } from './history.ts';
import { historyBlockId } from './measure-messages.ts';
import type { Message } from './message.ts';
import type { CompactionAction } from './report.ts';
import type { ResolvedCall } from './resolve-call.ts';
import type { DroppedBlock, Selection } from './select.ts';
import { type CallSelection, type CallSelector, SEPARATOR_TOKENS } from './select-call.ts';
import type { DropReason } from './select-types.ts';
import type { TokenCounter } from './tokens.ts';

/** The summary of dropped history made on a call's first attempt, kept for its retries. */
export interface SummaryState {
  block: ContextBlock | undefined;
  actions: CompactionAction[];
  /** The messages the summarizer covered, oldest first. */
  summarized: Message[];
}

/** A selection after compaction (see {@link compactCall}). */
export interface CompactedCall {
  selection: Selection;
  /** Everything not sent, with why: excluded before selection, then the selection's drops. */
  dropped: DroppedBlock[];
  /** The history the new summary may be recorded as covering (a prefix, oldest first). */
  covered: Message[];
  /** History a chunked cut dropped on top of what did not fit. */
  chunked: ContextBlock[];
  /** The trims. */
  actions: CompactionAction[];
  /**
   * When the history's drops are known by position: where they sit in `dropped` (`[from, to)`
   * pairs, in order, every history drop the selection made) and their tokens, and the tokens
   * of `chunked` — so the report neither reads each dropped block for its layer nor sums them.
   */
  historyDrops?: { ranges: readonly number[]; tokens: number; chunkedTokens: number };
}

/**
 * Stage 4, compact: selects (stage 3) with `extraReserve` held back; on the first attempt
 * (`summarize`) summarises the history that fell out — again over everything dropped when
 * the summary itself displaces more, once — then trims the best block that did not fit
 * into the room its layer has left, and marks the summarised history as such.
 */
export async function compactCall(input: {
  call: ResolvedCall;
  gathered: GatheredBlocks;
  selector: CallSelector;
  request: CompileRequest;
  options: CompileOptions;
  extraReserve: number;
  summary: SummaryState;
  summarize: boolean;
}): Promise<CompactedCall> {
  const { call, gathered, selector, request, options, extraReserve, summary } = input;
  const { counter, historyCandidates } = call;
  const { selectable } = gathered;
  const { candidateCount } = gathered;
  let pool =
    summary.block === undefined ? selectable : withSummary(selectable, summary.block, candidateCount);
  // A compile that summarises asks its first selection only what it drops, when that is
  // known by position: the selection's lists are made only if it is the one sent.
  const dropped =
    input.summarize && options.summarizer === undefined && !call.historyParts
      ? selector.historyDropped(pool, extraReserve)
      : undefined;
  const counted: CallSelection | undefined =
    dropped === undefined ? undefined : { selection: UNSELECTED, chunked: [], historyDropped: dropped };
  let picked =
    counted !== undefined && byPosition(call, counted) !== undefined
      ? counted
      : selector.select(pool, extraReserve);
  let { selection, chunked } = picked;

  if (input.summarize) {
    // Summarise what fell out; when the summary itself displaces more history, summarise
    // again over everything dropped (once), so nothing leaves the window unaccounted for.
    let erring: Message[] = [];
    let lost = lostHistory(call, picked, erring);
    for (let pass = 0; pass < 2 && lost.length > 0; pass++) {
      const made = await summarizeDropped({
        messages: lost,
        previousSummary: call.previousSummary,
        summarizer: options.summarizer,
        maxTokens:
          options.summaryMaxTokens ??
          Math.min(2000, Math.max(64, Math.floor(gathered.firstPlan.available * 0.1))),
        counter,
        droppedTokens: lostTokens(call, picked, counter),
        errorLines: errorLines(erring),
        // Only a summarizer numbers the periods it rolls.
        fromIndex: options.summarizer === undefined ? 0 : historyIndexOf(selection.dropped, lost[0]),
        ...(request.signal === undefined ? {} : { signal: request.signal }),
      });
      if (made === undefined || !call.included('compression__context')) break;
      summary.block = made.block;
      summary.actions = made.actions;
      summary.summarized = lost.slice(0, made.coveredCount);
      pool = withSummary(selectable, made.block, candidateCount);
      picked = selector.select(pool, extraReserve);
      ({ selection, chunked } = picked);
      if (lostCount(call, picked) <= lost.length) break;
      erring = [];
      lost = lostHistory(call, picked, erring);
    }
  }
  // Nothing was summarised after all: the first selection is the one sent.
  if (picked === counted) {
    picked = selector.select(pool, extraReserve);
    ({ selection, chunked } = picked);
  }

  const untrimmed = selection;
  const trimmed = trimDropped(selection, counter, {
    minTrimTokens: options.minTrimTokens ?? 24,
    separatorTokens: SEPARATOR_TOKENS,
    compactable: call.compactable,
    trimHistory: summary.block === undefined,
    candidates: pool,
  });
  selection = trimmed.selection;
  const covered =
    summary.summarized.length === 0
      ? []
      : coveredPrefix(
          historyCandidates.map((block) => (block.metadata as HistoryBlockMetadata).message),
          summary.summarized,
          selection.dropped,
        );
  const summarizedIds = new Set(covered.map(historyBlockId));
  const recalled = withRecalled(call.excluded, call.coveredDrops, selection.kept);
  const recallTool = (request.steps?.length ?? 0) > 0 ? options.toolResults?.recallTool : undefined;
  const all = recalled.concat(
    summarizedIds.size === 0 && recallTool === undefined
      ? selection.dropped
      : selection.dropped.map((entry): DroppedBlock => {
          if (entry.reason.type !== 'over-budget') return entry;
          if (summarizedIds.has(entry.block.id)) return { block: entry.block, reason: SUMMARIZED_REASON };
          // A step of this turn dropped for room: its tool's search finds it until it is stored.
          return recallTool !== undefined && entry.block.layer === 'history' && call.isStep(entry.block)
            ? { block: entry.block, reason: stepRecall(entry.reason, recallTool) }
            : entry;
        }),
  );
  const compacted: CompactedCall = { selection, dropped: all, covered, chunked, actions: trimmed.actions };
  // A trim replaces a drop (the positions move): the report then reads every drop.
  const known = selection === untrimmed ? byPosition(call, picked) : undefined;
  const ranges = picked.historyEntries;
  if (known !== undefined && ranges !== undefined) {
    const { sums, count } = known;
    compacted.historyDrops = {
      ranges: ranges.map((at) => at + recalled.length),
      tokens: sums[count] as number,
      chunkedTokens: (sums[count] as number) - (sums[count - chunked.length] as number),
    };
  }
  return compacted;
}

/** Recallable step reasons, one per grant's reason (drops of one grant stay one run in the report). */
const stepReasons = new WeakMap<DropReason, DropReason>();

function stepRecall(reason: DropReason & { type: 'over-budget' }, recallTool: string): DropReason {
  let made = stepReasons.get(reason);
  if (made === undefined || (made as { recallTool?: string }).recallTool !== recallTool) {
    made = Object.freeze({ ...reason, recallTool });
    stepReasons.set(reason, made);
  }
  return made;
}

/** The stand-in selection of a first selection asked only what it drops (never read: see `byPosition`). */
const UNSELECTED: Selection = Object.freeze({
  kept: [],
  dropped: [],
  layers: [],
  pinnedTokens: 0,
}) as unknown as Selection;

/**
 * The history candidates and their messages when `picked` says its history drops are the
 * first `historyDropped` candidates, made from checked messages with their running sums.
 */
function byPosition(
  call: ResolvedCall,
  picked: CallSelection,
): { count: number; sums: Float64Array; messages: readonly Message[]; offset: number } | undefined {
  const count = picked.historyDropped;
  const source = call.historyMadeFrom;
  const sums = call.historyTokensBefore;
  if (count === undefined || source === undefined || sums === undefined) return undefined;
  if (count > source.count || sums.length !== call.historyCandidates.length + 1) return undefined;
  return { count, sums, messages: source.messages, offset: source.offset };
}

/**
 * The history dropped for lack of room, oldest first (`droppedHistory`), pushing onto
 * `erring` those that may carry a failed tool result. By position when known: the candidates'
 * messages, none of which errs when no history message has parts.
 */
function lostHistory(call: ResolvedCall, picked: CallSelection, erring: Message[]): Message[] {
  const known = call.historyParts ? undefined : byPosition(call, picked);
  if (known === undefined) return droppedHistory(picked.selection.dropped, erring);
  return known.messages.slice(known.offset, known.offset + known.count);
}

/** The tokens of {@link lostHistory}'s messages (`droppedHistoryTokens`), from the running sums when known. */
function lostTokens(call: ResolvedCall, picked: CallSelection, counter: TokenCounter): number {
  const known = byPosition(call, picked);
  return known === undefined
    ? droppedHistoryTokens(picked.selection.dropped, counter)
    : (known.sums[known.count] as number);
}

/** How many messages {@link lostHistory} gives (`droppedHistoryCount`). */
function lostCount(call: ResolvedCall, picked: CallSelection): number {
  return byPosition(call, picked)?.count ?? droppedHistoryCount(picked.selection.dropped);
}

/**
 * Covered history a kept block names (`metadata.messageId`, e.g. a long session's recall) was
 * sent after all: reported `recalled` into that block's layer (decision 040). Only the covered
 * drops can be (`covered`): they are found by id, so a step costs what its recall kept, not the
 * covered history's length.
 */
function withRecalled(
  excluded: readonly DroppedBlock[],
  covered: ResolvedCall['coveredDrops'],
  kept: readonly ContextBlock[],
): DroppedBlock[] {
  const out = excluded.slice();
  // Without covered history nothing can be recalled: the kept blocks are not read.
  if (covered.drops.length === 0) return out;
  let positions: ReadonlyMap<string, number | number[]> | undefined;
  // Newest first: of two kept blocks naming one message, the later one's layer is reported.
  for (let index = kept.length - 1; index >= 0; index--) {
    const block = kept[index] as ContextBlock;
    // The layer first: a history block's metadata (one more object per block) is not read.
    if (block.layer === 'history') continue;
    const id = block.metadata.messageId;
    if (typeof id !== 'string') continue;
    positions ??= dropPositions(covered.drops);
    const at = positions.get(id);
    if (at === undefined) continue;
    for (const position of typeof at === 'number' ? [at] : at) {
      const entry = out[covered.from + position] as DroppedBlock;
      if (recallable(entry))
        out[covered.from + position] = {
          block: entry.block,
          reason: { type: 'recalled', into: block.layer },
        };
    }
  }
  return out;
}

/** Where each message's drop is among covered drops, by message id (once per drops array). */
const positionsMemo = new WeakMap<readonly DroppedBlock[], Map<string, number | number[]>>();

function dropPositions(drops: readonly DroppedBlock[]): ReadonlyMap<string, number | number[]> {
  let positions = positionsMemo.get(drops);
  if (positions !== undefined) return positions;
  positions = new Map();
  for (let index = 0; index < drops.length; index++) {
    const id = ((drops[index] as DroppedBlock).block.metadata as HistoryBlockMetadata).message.id;
    const known = positions.get(id);
    // Ids are unique in a stored conversation; a caller's history may repeat one.
    if (known === undefined) positions.set(id, index);
    else if (typeof known === 'number') positions.set(id, [known, index]);
    else known.push(index);
  }
  positionsMemo.set(drops, positions);
  return positions;
}

/** A covered history message's entry: summarised, or recallable from the conversation index. */
function recallable(entry: DroppedBlock): boolean {
  if (entry.block.layer !== 'history') return false;
  const reason = entry.reason.type;
  return reason === 'summarized' || reason === 'recallable';
}

/** Index in the history of a dropped message (0 when unknown). */
function historyIndexOf(dropped: readonly DroppedBlock[], message: Message | undefined): number {
  if (message === undefined) return 0;
  for (const entry of dropped) {
    const metadata = entry.block.metadata as Partial<HistoryBlockMetadata>;
    if (entry.block.layer === 'history' && metadata.message?.id === message.id) return metadata.index ?? 0;
  }
  return 0;
}
