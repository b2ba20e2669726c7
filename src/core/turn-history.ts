import type { ContextBlock } from './block.ts';
import type { CompileRequest } from './compile-types.ts';
import { extendSums } from './extend-sums.ts';
import {
  buildHistoryBlocks,
  collectToolGroups,
  coverageEnd,
  type HistoryBlockMetadata,
  historyBlock,
  historyBlocks,
  historyToBlocks,
  noToolGroups,
  positionPriority,
  type ToolGroups,
} from './history.ts';
import { historyWindowStart } from './history-window.ts';
import {
  type MeasureScan,
  type MessageMeasure,
  measureAndScan,
  measureMessages,
} from './measure-messages.ts';
import type { Message } from './message.ts';
import type { CompactionAction, CompileWarning } from './report.ts';
import { createRunMemo } from './run-memo.ts';
import { renameQuery, takeQueryEnd } from './take-query.ts';
import type { TokenCounter } from './tokens.ts';
import { toolPairingWarnings } from './tool-pairing-warnings.ts';
import { placeholderToolResults, type ToolResultPolicy } from './tool-result-placeholders.ts';

/** How tool outputs of the history become placeholders (see `placeholderToolResults`). */
export interface HistoryPlaceholders {
  policy: ToolResultPolicy;
  /** Outputs above this many tokens are always replaced. */
  maxTokens: number;
  /** Messages from this index on belong to the current turn (in history positions; ≥ length: none). */
  currentFrom: number;
}

/** What a compile derives from the history alone, before the tool loop's steps. */
export interface PreparedHistory {
  /** The history without the query, earlier-turn tool outputs replaced by placeholders. */
  messages: readonly Message[];
  /** The history's copy of the query, taken out (sent as the query). */
  queryInHistory: Message | undefined;
  warnings: readonly CompileWarning[];
  /** The placeholders set in the history. */
  actions: readonly CompactionAction[];
  /** Index of the first message after the persisted summary's coverage (0: none covered). */
  coveredTo: number;
  /** Index of the first message in the history window (0: the window leaves nothing out). */
  windowFrom: number;
  /** Index of the first message that is a candidate: after the coverage and inside the window. */
  keptFrom: number;
  /** Measures of `messages`. */
  measures: readonly MessageMeasure[];
  /** What the measuring pass knew of `measures` against the ones it returned before (see {@link MeasureScan}). */
  measuresCarried?: MeasureScan['carried'];
  /** Whether some message's content is a parts array (else none has a tool result, nor an error). */
  parts: boolean;
  /** Whether some message's id is reserved (`isReservedMessageId`; else no walk looks for them). */
  reserved: boolean;
  /** Tool groups of `messages` from `keptFrom` on (indices relative to `keptFrom`). */
  keptGroups: ToolGroups;
  /** Tool groups of the covered messages (before `coveredTo`). */
  coveredGroups: ToolGroups;
  /** Tool groups of the messages outside the window and not covered (`coveredTo`..`keptFrom`, relative). */
  windowGroups: ToolGroups;
  /** Ids of `messages`, made by the first call with steps (only steps are checked against them). */
  ids?: ReadonlySet<string>;
  /**
   * Blocks made from this history by the first call that needed them, shared by every later
   * call (blocks are never changed after they are made): the kept history's (the same with
   * and without steps, see `positionPriority`), and the covered and windowed messages' (see
   * {@link turnHistoryBlocks}).
   */
  blocks: {
    kept?: ContextBlock[];
    /** Running token sums of `kept` (see {@link KeptBlocks}). */
    keptTokensBefore?: Float64Array;
    /** Whether each of `kept` was made or taken with its message's measure (see {@link KeptBlocks}). */
    keptByMeasure?: boolean;
    covered?: ContextBlock[];
    windowed?: ContextBlock[];
  };
}

/**
 * Where history blocks were made: `blocks[i]` (of the list it comes with) from
 * `messages[offset + i]`, for `i < count`.
 */
export interface HistoryBlockSource {
  messages: readonly Message[];
  offset: number;
  count: number;
}

interface Memo {
  counter: TokenCounter;
  store: ToolResultPolicy['store'] | undefined;
  key: string;
  prepared: PreparedHistory;
}

/** By frozen history array: the last preparation (a tool loop compiles the same history each step). */
const memos = new WeakMap<readonly Message[], Memo>();

/**
 * Prepares the history of a compile: takes the query out, replaces earlier-turn tool outputs
 * with placeholders, finds the summary's coverage and the history window (`maxMessages`),
 * measures every message and groups tool calls with their results. A
 * frozen history array (the step compiler freezes its copy) cannot change, so its
 * preparation is kept and reused while the query, counter and placeholder rules are the
 * same: a recompile after one tool result does no per-message work for the history.
 */
export function prepareHistory(input: {
  history: readonly Message[];
  query: Message | undefined;
  rawQuery: CompileRequest['query'];
  counter: TokenCounter;
  placeholders: HistoryPlaceholders | undefined;
  throughMessageId: string | undefined;
  /** The history window (`maxHistoryMessages`); undefined: none. */
  maxMessages?: number | undefined;
}): PreparedHistory {
  const { history, counter, placeholders } = input;
  if (!Object.isFrozen(history)) return prepare(input);
  const store = placeholders?.policy.store;
  const key = memoKey(input);
  const known = memos.get(history);
  if (known !== undefined && known.counter === counter && known.store === store && known.key === key) {
    return known.prepared;
  }
  const prepared = prepare(input);
  memos.set(history, { counter, store, key, prepared });
  return prepared;
}

function memoKey(input: Parameters<typeof prepareHistory>[0]): string {
  const { placeholders } = input;
  const policy = placeholders?.policy;
  return JSON.stringify([
    input.query?.id,
    typeof input.rawQuery === 'string' ? input.rawQuery : null,
    input.throughMessageId,
    input.maxMessages ?? null,
    placeholders === undefined
      ? null
      : [
          Math.min(placeholders.currentFrom, input.history.length),
          placeholders.maxTokens,
          policy?.earlierTurnMaxTokens,
          policy?.previewChars,
        ],
  ]);
}

function prepare(input: Parameters<typeof prepareHistory>[0]): PreparedHistory {
  const { counter, placeholders } = input;
  const warnings: CompileWarning[] = [];
  const history = [...input.history];
  // The query is taken off the end now; whether its id is taken is seen while measuring.
  const end =
    input.query === undefined ? undefined : takeQueryEnd(history, input.query, input.rawQuery, warnings);
  // Placeholders only inside the window: outside it nothing is sent, so nothing is kept aside.
  const windowFrom = historyWindowStart(history, input.maxMessages);
  let messages: Message[] = history;
  let actions: CompactionAction[] = [];
  if (placeholders !== undefined) {
    const replaced = placeholderToolResults({
      messages: windowFrom === 0 ? history : history.slice(windowFrom),
      currentFrom: Math.max(0, placeholders.currentFrom - windowFrom),
      policy: placeholders.policy,
      maxTokens: placeholders.maxTokens,
      counter,
    });
    messages = windowFrom === 0 ? replaced.messages : history.slice(0, windowFrom).concat(replaced.messages);
    actions = replaced.actions;
  }
  const coveredTo = coverageEnd(messages, input.throughMessageId);
  const keptFrom = Math.max(coveredTo, windowFrom);
  const query = input.query;
  const pending = query !== undefined && end?.done === false;
  // The measuring pass answers the query-id question when it walks the same messages.
  const scanned = pending && messages === history;
  const scan = measureAndScan(messages, counter, scanned ? query.id : undefined);
  let queryInHistory = end?.done === true ? end.sent : undefined;
  if (pending) {
    const taken = scanned ? scan.idTaken : history.some((message) => message.id === query.id);
    queryInHistory = renameQuery(history, query, input.rawQuery, warnings, taken);
  }
  // Without a parts array no message has tool parts: no walk for the groups.
  const groupsOf = (from: number, to: number): ToolGroups =>
    scan.parts ? collectToolGroups(messages.slice(from, to)) : noToolGroups();
  return {
    messages,
    queryInHistory,
    warnings,
    actions,
    coveredTo,
    windowFrom,
    keptFrom,
    measures: scan.measures,
    ...(scan.carried === undefined ? {} : { measuresCarried: scan.carried }),
    parts: scan.parts,
    reserved: scan.reserved,
    keptGroups: groupsOf(keptFrom, messages.length),
    coveredGroups: groupsOf(0, coveredTo),
    windowGroups: groupsOf(coveredTo, keptFrom),
    blocks: {},
  };
}

/**
 * The history blocks of one call: the prepared history followed by the turn's steps (their
 * tool outputs already replaced where due), minus what the persisted summary covers
 * (`covered`) and what is older than the history window (`windowed`) — the same blocks
 * `historyBlocks` gives for the windowed turn, without measuring the history again. The
 * sources see the turn from the window's start. `firstStep` is the index of the first step's
 * block (−1 when there are no steps).
 */
export function turnHistoryBlocks(input: {
  prepared: PreparedHistory;
  steps: readonly Message[];
  counter: TokenCounter;
  throughMessageId: string | undefined;
}): {
  turn: Message[];
  blocks: ContextBlock[];
  /** Blocks of the messages the summary covers, oldest first: the same array for every compile of one prepared history (read only). */
  covered: readonly ContextBlock[];
  /** Blocks of the messages older than the window and not covered, oldest first. */
  windowed: ContextBlock[];
  firstStep: number;
  /** True for history-layer blocks of a step's message (by id). */
  isStep: (block: ContextBlock) => boolean;
  /** `tokensBefore[i]`: the tokens of `blocks[0..i)`, when known (see {@link KeptBlocks}). */
  tokensBefore?: Float64Array;
  /** The history messages `blocks` were made from: `blocks[i]` from `messages[offset + i]`, for `i < count`. */
  madeFrom?: HistoryBlockSource;
  /** Tool calls without results and results without calls among `blocks` (see `toolPairingWarnings`). */
  unpaired: readonly CompileWarning[];
} {
  const { prepared, steps, counter, throughMessageId } = input;
  const { windowFrom } = prepared;
  const turn = (windowFrom === 0 ? prepared.messages : prepared.messages.slice(windowFrom)).concat(steps);
  const historyLength = prepared.messages.length;
  let clash = false;
  if (steps.length > 0) {
    prepared.ids ??= new Set(prepared.messages.map((message) => message.id));
    const ids = prepared.ids;
    clash = steps.some((message) => ids.has(message.id));
  }
  // Any history-layer block naming a step's message is a step, whichever source made it (a
  // source such as the L1 memory may add history blocks of its own).
  const stepIds = new Set(steps.map((message) => message.id));
  const isStep =
    steps.length === 0
      ? () => false
      : (block: ContextBlock) => stepIds.has((block.metadata as { message: Message }).message.id);
  const coveredInSteps =
    throughMessageId !== undefined &&
    prepared.coveredTo === 0 &&
    steps.some((message) => message.id === throughMessageId);
  if (clash || coveredInSteps) {
    // Rare: a step repeats a history id, or the summary covers part of this turn's steps.
    const { blocks, covered } = historyBlocks(turn, counter, throughMessageId, windowFrom);
    const firstStep = blocks.findIndex((block) =>
      stepIds.has((block.metadata as { message: Message }).message.id),
    );
    // Before the window: what the summary covers (all of it, when it reaches into the steps).
    const outside = historyToBlocks(prepared.messages.slice(0, windowFrom), counter);
    const coveredOutside = coveredInSteps ? outside.length : Math.min(prepared.coveredTo, windowFrom);
    const sent = blocks.map((block) => (block.metadata as { message: Message }).message);
    return {
      unpaired: toolPairingWarnings(collectToolGroups(sent), (index) => sent[index]),
      turn,
      blocks,
      covered: [...outside.slice(0, coveredOutside), ...covered],
      windowed: outside.slice(coveredOutside),
      firstStep,
      isStep,
    };
  }
  const { coveredTo, keptFrom, measures, keptGroups, coveredGroups, windowGroups } = prepared;
  const keptCount = historyLength - keptFrom;
  const cache = prepared.blocks;
  // The history's blocks do not depend on the steps (nor on later messages: priorities are
  // positions, `positionPriority`), so every step of a tool loop reuses them, and a compile
  // after new messages reuses the blocks the previous compile made for the older ones.
  if (cache.kept === undefined) {
    const made = reusedBlocks(prepared.messages, keptFrom, measures, keptGroups, prepared.measuresCarried);
    cache.kept = made.blocks;
    cache.keptByMeasure = made.byMeasure;
    if (made.tokensBefore !== undefined) cache.keptTokensBefore = made.tokensBefore;
  }
  let blocks: ContextBlock[];
  let tokensBefore: Float64Array | undefined;
  let tools = keptGroups;
  if (steps.length === 0) {
    blocks = cache.kept.slice();
    tokensBefore = cache.keptTokensBefore;
  } else {
    const stepMeasures = measureMessages(steps, counter);
    tools = collectToolGroups(steps, keptCount, keptGroups);
    const stepBlocks = buildHistoryBlocks(
      steps,
      (index) => stepMeasures[index] as MessageMeasure,
      (index) => tools.groups.get(keptCount + index),
      (index) => ({
        message: steps[index] as Message,
        index: keptCount + index,
        error: (stepMeasures[index] as MessageMeasure).error,
      }),
      (index) => positionPriority(historyLength + index),
    );
    blocks = cache.kept.concat(stepBlocks);
  }
  cache.covered ??=
    coveredTo === 0
      ? []
      : buildHistoryBlocks(
          prepared.messages.slice(0, coveredTo),
          (index) => measures[index] as MessageMeasure,
          (index) => coveredGroups.groups.get(index),
        );
  cache.windowed ??=
    keptFrom === coveredTo
      ? []
      : buildHistoryBlocks(
          prepared.messages.slice(coveredTo, keptFrom),
          (index) => measures[coveredTo + index] as MessageMeasure,
          (index) => windowGroups.groups.get(index),
          undefined,
          (index) => positionPriority(coveredTo + index),
        );
  const windowed = cache.windowed.slice();
  const result: ReturnType<typeof turnHistoryBlocks> = {
    turn,
    blocks,
    covered: cache.covered,
    windowed,
    firstStep: steps.length === 0 ? -1 : keptCount,
    isStep,
    // Group indices count from the first kept message, which is `turn[keptFrom - windowFrom]`.
    unpaired: toolPairingWarnings(tools, (at) => turn[keptFrom - windowFrom + at]),
  };
  if (tokensBefore !== undefined) result.tokensBefore = tokensBefore;
  if (cache.keptByMeasure === true)
    result.madeFrom = { messages: prepared.messages, offset: keptFrom, count: keptCount };
  return result;
}

/** The kept history's blocks of the last compiles, by message (see {@link reusedBlocks}). */
const keptRuns = createRunMemo<Message, ContextBlock>();

/**
 * The kept history's blocks and, when none is in a tool group and every count is a whole
 * number, their running token sums: `tokensBefore[i]` is the tokens of `blocks[0..i)` (length
 * `blocks.length + 1`). Carried over with the blocks, so the later stages find where the
 * history's tokens cross a budget or a chunk boundary without reading each block.
 */
interface KeptBlocks {
  blocks: ContextBlock[];
  tokensBefore?: Float64Array;
  /**
   * Each block is new or was taken with the very measure its message has now (by pointer), so
   * it stands for the message's content, role, name and metadata as they are. False when the
   * run memo's field checks reused a block (they do not see a role or metadata change).
   */
  byMeasure: boolean;
}

/**
 * The blocks of `history.slice(from)` (the kept history), made as `buildHistoryBlocks` makes them. Runs of messages an earlier compile made blocks for, in
 * the same order, are taken from it by pointer while each block is still what would be made
 * (same measure, group, place and priority): a compile after one new message makes one block.
 */
function reusedBlocks(
  history: readonly Message[],
  from: number,
  measures: readonly MessageMeasure[],
  groups: ToolGroups,
  /** The measuring pass's answer to the walk below, when it compared with the same measures. */
  carried?: MeasureScan['carried'],
): KeptBlocks {
  const count = history.length - from;
  const measureOf = (index: number) => measures[from + index] as MessageMeasure;
  // Most histories have no tool calls: no group lookup per message then.
  const byIndex = groups.groups.size === 0 ? undefined : groups.groups;
  const known = lastKept;
  if (byIndex === undefined && known !== undefined && known.from === from) {
    // The same measure object at the same place is the same message as measured then (the
    // measures are kept by message, and checked against it): its block is still what would
    // be made, read by pointer only. The new messages after them get new blocks.
    const limit = Math.min(count, known.blocks.length);
    let same = 0;
    if (carried !== undefined && carried.previous === known.measures)
      same = Math.max(0, Math.min(limit, carried.same - from));
    else while (same < limit && Object.is(measures[from + same], known.measures[from + same])) same++;
    if (same > 0) {
      // Sized once: the earlier blocks copied, the new ones written after them.
      const blocks = new Array<ContextBlock>(count);
      for (let index = 0; index < same; index++) blocks[index] = known.blocks[index] as ContextBlock;
      for (let index = same; index < count; index++) {
        const measure = measureOf(index);
        const message = history[from + index] as Message;
        blocks[index] = historyBlock(
          measure,
          { message, index, error: measure.error },
          positionPriority(from + index),
          undefined,
        );
      }
      const tokensBefore =
        known.tokensBefore === undefined ? undefined : extendSums(known.tokensBefore, blocks, same);
      lastKept = { measures, from, blocks, tokensBefore };
      return tokensBefore === undefined
        ? { blocks, byMeasure: true }
        : { blocks, tokensBefore, byMeasure: true };
    }
  }
  const computedBefore = keptRuns.computed;
  const blocks = keptRuns.map({
    keys: history.slice(from),
    compute: (message, index) => {
      const measure = measureOf(index);
      return historyBlock(
        measure,
        { message, index, error: measure.error },
        positionPriority(from + index),
        byIndex?.get(index),
      );
    },
    valid: (block, index) => {
      const measure = measureOf(index);
      const metadata = block.metadata as HistoryBlockMetadata;
      return (
        block.content === measure.text &&
        block.tokens === measure.tokens &&
        block.id === measure.blockId &&
        metadata.index === index &&
        metadata.error === measure.error &&
        block.group === byIndex?.get(index) &&
        block.priority === positionPriority(from + index)
      );
    },
    startsRun: () => false,
    // Neither the keys (a slice made for this call) nor the blocks are changed afterwards.
    unshared: { keys: true, values: true },
  });
  const byMeasure = keptRuns.computed - computedBefore === blocks.length;
  if (byIndex !== undefined) {
    lastKept = undefined;
    return { blocks, byMeasure };
  }
  const tokensBefore = extendSums(new Float64Array(1), blocks, 0);
  lastKept = { measures, from, blocks, tokensBefore };
  return tokensBefore === undefined ? { blocks, byMeasure } : { blocks, tokensBefore, byMeasure };
}

/**
 * The kept history's blocks of the last compile without tool groups, with the measures they
 * were made from (all of the history's), the position of the first and their running token
 * sums (see {@link reusedBlocks}).
 */
let lastKept:
  | {
      measures: readonly MessageMeasure[];
      from: number;
      blocks: readonly ContextBlock[];
      tokensBefore: Float64Array | undefined;
    }
  | undefined;
