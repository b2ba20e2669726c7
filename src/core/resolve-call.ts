import { assertCompileOptions } from './assert-compile-options.ts';
import { type ContextBlock, createBlock } from './block.ts';
import type { BudgetManager } from './budget.ts';
import { compressionBlock, SUMMARIZED_REASON } from './compact.ts';
import type { CompileOptions, CompileRequest } from './compile-types.ts';
import { type ComposePolicy, compose, layerFilter, toQueryMessage } from './compose.ts';
import { assertMaxHistoryMessages } from './history-window.ts';
import { assertContextKey, type ContextKey, createLayerRegistry, type LayerRegistry } from './layers.ts';
import type { MessageMeasure } from './measure-messages.ts';
import type { Message } from './message.ts';
import { type CompactionAction, type CompileWarning, LISTED_WARNINGS } from './report.ts';
import { isReservedMessageId } from './reserved-message-id.ts';
import { resolveBudget } from './resolve-budget.ts';
import type { DroppedBlock, DropReason } from './select.ts';
import { shorten } from './shorten.ts';
import type { TokenCounter } from './tokens.ts';
import { countToolDefinitions, type ToolDefinition } from './tool-definitions.ts';
import { placeholderToolResults } from './tool-result-placeholders.ts';
import {
  type HistoryBlockSource,
  type PreparedHistory,
  prepareHistory,
  turnHistoryBlocks,
} from './turn-history.ts';

/** Tokens the current turn's `open_artifact` pages leave free (the count of joined layers may move). */
const PAGE_SLACK_TOKENS = 16;

/** What the resolve stage settles before any source runs (see {@link resolveCall}). */
export interface ResolvedCall {
  counter: TokenCounter;
  layers: LayerRegistry;
  /** The share switch (`enableShareContext`). */
  share: boolean;
  policy: ComposePolicy;
  /** Whether a layer is injected under the share policy. */
  included: (layer: string) => boolean;
  /** Whether a layer's blocks may be dropped or trimmed. */
  compactable: (layer: string) => boolean;
  budget: BudgetManager;
  /** `window − reserve`: the base of the placeholder and chunk sizes. */
  budgetPreview: number;
  /** Never-compacted layers' text, by layer. */
  fixedContexts: Record<ContextKey, string>;
  /** Compactable blocks that compete for the budget (no history yet). */
  candidates: ContextBlock[];
  /** Blocks left out before selection (share switch off, covered by the stored summary). */
  excluded: DroppedBlock[];
  /**
   * The covered history's drops, `excluded[from…from + drops.length)` (the only entries of
   * `excluded` a kept block can recall: the others are share-disabled).
   */
  coveredDrops: { from: number; drops: readonly DroppedBlock[] };
  /** Ids of blocks that went into never-compacted layers. */
  fixedBlockIds: Set<string>;
  /** Sorts a block into the fixed layers, the candidates or the excluded. */
  addBlock: (block: ContextBlock) => void;
  previousSummary: string | undefined;
  query: Message | undefined;
  /** What is sent as the query when it is not `query` itself: the history's copy, or the query under a fresh id. */
  queryInHistory: Message | undefined;
  /**
   * The reserved ids (`isReservedMessageId`) the history, steps and query have, each warned
   * `message-id-reserved`: a layer message of one of them is sent under a free id. Absent: none.
   */
  reservedIds?: ReadonlySet<string>;
  warnings: CompileWarning[];
  /** Tool outputs kept as artifacts behind placeholders. */
  placeholderActions: CompactionAction[];
  /** History and steps as the sources see them (placeholders set). */
  turn: Message[];
  /** History and step blocks, oldest first, minus what the stored summary covers and the window leaves out. */
  historyCandidates: ContextBlock[];
  /** History older than the window (`maxHistoryMessages`) and not covered, oldest first. */
  windowed: ContextBlock[];
  /** `historyTokensBefore[i]`: the tokens of `historyCandidates[0..i)`, when carried over (no steps, no tool groups). */
  historyTokensBefore?: Float64Array;
  /**
   * The messages the history candidates were made from, by position, when this compile's
   * measuring pass checked each of them (a history array not frozen): an unchanged block then
   * stands for its message as it is (see `keptHistoryRun`).
   */
  historyMadeFrom?: HistoryBlockSource;
  /**
   * The same for a frozen history, whose preparation is reused unchecked (a tool loop's steps):
   * its blocks stand for its messages as they were when it was first compiled. Compose takes
   * the kept run by position and its tagged copies by block — sent as counted, as they were —
   * while the compact stage reads its drops entry by entry (decision 031, amendment).
   */
  frozenHistoryFrom?: HistoryBlockSource;
  /**
   * A frozen history's messages and the measures its preparation took of them (aligned), and
   * the first kept one: compose sends each kept message as it was measured (`asMeasured`), so a
   * message changed in place since is sent at the cost its block has.
   */
  frozenHistory?: { messages: readonly Message[]; measures: readonly MessageMeasure[]; keptFrom: number };
  /** Whether some history message has a parts array (false: no history message carries an error). */
  historyParts: boolean;
  /** Index of the first step's block in `historyCandidates`, −1 without steps. */
  firstStep: number;
  isStep: (block: ContextBlock) => boolean;
  tools: readonly ToolDefinition[];
  toolTokens: number;
  /** Tokens every plan reserves: system prompt, fixed layers, query, layer frames, tools. */
  fixedTokens: number;
  /**
   * The layer frame `fixedTokens` holds for each of these context layers (no fixed text): a
   * layer that keeps no block is not sent, and its frame is room nobody uses.
   */
  layerFrames: { tokens: number; layers: ReadonlySet<string> };
}

/**
 * Stage 1, resolve: the layers and policy, the budget, the fixed layers, the candidates
 * handed in (and those the share switch leaves out), the query, the history and the steps
 * with tool outputs kept as artifacts where due, the tool definitions and what all of it
 * reserves. With `squeezeSteps`, the turn's earlier tool outputs become placeholders too;
 * with `stepRoom` (a call that could not keep its turn's outputs), every output of the turn
 * shares that many tokens with the steps around it, newest first, and what does not fit is
 * kept as an artifact (read by pages).
 */
export function resolveCall(
  request: CompileRequest,
  options: CompileOptions,
  squeezeSteps: boolean,
  stepRoom?: number,
): ResolvedCall {
  const { counter } = options;
  assertMaxHistoryMessages(options.maxHistoryMessages);
  assertCompileOptions(options);
  const layers = options.layers ?? createLayerRegistry();
  const share = options.enableShareContext ?? true;
  // Cache-stable by default: per-call layers after the history, so the cached prefix holds.
  const policy: ComposePolicy = {
    order: 'cache-friendly',
    ...options.policy,
    layers,
    enableShareContext: share,
  };
  const included = layerFilter(policy, layers);
  const budget = resolveBudget(options);
  const compactable = (layer: string) => layers.has(layer) && layers.get(layer).compactable;

  const fixedContexts: Record<ContextKey, string> = {};
  const candidates: ContextBlock[] = [];
  const excluded: DroppedBlock[] = [];
  const fixedBlockIds = new Set<string>();
  const addBlock = (block: ContextBlock) => {
    layers.get(block.layer);
    if (!included(block.layer)) excluded.push({ block, reason: { type: 'share-disabled' } });
    else if (!compactable(block.layer)) {
      fixedBlockIds.add(block.id);
      const key = block.layer as ContextKey;
      const existing = fixedContexts[key];
      fixedContexts[key] = existing === undefined ? block.content : `${existing}\n\n${block.content}`;
    } else candidates.push(block);
  };
  for (const [key, text] of Object.entries(request.contexts ?? {})) {
    assertContextKey(key);
    if (text === undefined || text.length === 0) continue;
    addBlock(createBlock({ id: key, layer: key, source: key, content: text, priority: 1 }, counter));
  }
  for (const block of request.blocks ?? []) addBlock(block);
  const previousSummary = request.compression?.summary;
  if (previousSummary !== undefined && previousSummary.length > 0) {
    addBlock(compressionBlock(previousSummary, counter, { persisted: true }));
  }

  const query = toQueryMessage(request.query);
  const steps = request.steps ?? [];
  const budgetPreview = budget.window - Math.floor(budget.window * budget.outputReserveRatio);
  // Tool outputs kept as artifacts (oversized, or from an earlier turn) before anything is counted.
  const historyLength = (request.history ?? []).length;
  // Where the current turn starts (in positions of history + steps): after the history when
  // there is a query; without one, at the last user message.
  const currentFrom =
    query === undefined && !squeezeSteps
      ? lastUserIndex([...(request.history ?? []), ...steps])
      : historyLength;
  const toolResults = options.toolResults;
  const maxPlaceholderTokens = toolResults?.maxTokens ?? Math.floor(budgetPreview * 0.4);
  const throughMessageId = request.compression?.throughMessageId;
  const prepared = prepareHistory({
    history: request.history ?? [],
    query,
    rawQuery: request.query,
    counter,
    placeholders:
      toolResults === undefined
        ? undefined
        : { policy: toolResults, maxTokens: maxPlaceholderTokens, currentFrom },
    throughMessageId,
    maxMessages: options.maxHistoryMessages,
  });
  const tools = options.tools ?? [];
  const toolTokens = countToolDefinitions(tools, counter);
  const fixedMessages = compose({
    ...(request.systemPrompt === undefined ? {} : { systemPrompt: request.systemPrompt }),
    contexts: fixedContexts,
    ...(query === undefined ? {} : { query: prepared.queryInHistory ?? query }),
    policy,
  });
  const layerFrame = counter.overhead.perMessage + counter.countText('system');
  const contextLayers = new Set(
    layers.list().filter((layer) => layer.kind === 'context' && included(layer.name)),
  );
  const fixedTokens = counter.countMessages(fixedMessages) + contextLayers.size * layerFrame + toolTokens;
  const framed = new Set<string>();
  for (const layer of contextLayers)
    if (fixedContexts[layer.name as ContextKey] === undefined) framed.add(layer.name);
  const warnings: CompileWarning[] = [...prepared.warnings];
  const placeholderActions: CompactionAction[] = [...prepared.actions];
  let turnSteps = steps;
  if (toolResults !== undefined) {
    const replaced = placeholderToolResults({
      messages: steps,
      // Squeezed, the turn's earlier outputs count as earlier-turn ones; fitted, all are current.
      currentFrom:
        stepRoom !== undefined ? 0 : squeezeSteps ? lastToolCallIndex(steps) : currentFrom - historyLength,
      policy: toolResults,
      maxTokens: maxPlaceholderTokens,
      counter,
      // `open_artifact` pages may fill what the fixed part leaves (they are sized to it).
      pageTokens:
        (stepRoom ?? Math.min(budgetPreview, options.maxInputTokens ?? budgetPreview) - fixedTokens) -
        PAGE_SLACK_TOKENS,
      fitOutputs: stepRoom !== undefined,
    });
    turnSteps = replaced.messages;
    placeholderActions.push(...replaced.actions);
  }
  const {
    turn,
    blocks: historyCandidates,
    covered,
    windowed,
    firstStep,
    isStep,
    tokensBefore,
    madeFrom,
    unpaired,
  } = turnHistoryBlocks({ prepared, steps: turnSteps, counter, throughMessageId });
  warnings.push(...unpaired);
  if (
    throughMessageId !== undefined &&
    prepared.coveredTo === 0 &&
    !steps.some((message) => message.id === throughMessageId)
  )
    // A warning, not an error: a caller may window its history past the summary's end.
    warnings.push({
      code: 'summary-end-not-found',
      message: `compression.throughMessageId "${shorten(throughMessageId)}" is in neither the history nor the steps: the summary covers none of them`,
      messageId: throughMessageId,
    });
  const drops = coveredDrops(
    covered,
    request.compression?.uncarried,
    request.compression?.recallTool ?? 'search_history',
  );
  const coveredFrom = excluded.length;
  for (let index = 0; index < drops.length; index++) excluded.push(drops[index] as DroppedBlock);
  const resolved: ResolvedCall = {
    counter,
    layers,
    share,
    policy,
    included,
    compactable,
    budget,
    budgetPreview,
    fixedContexts,
    candidates,
    excluded,
    coveredDrops: { from: coveredFrom, drops },
    fixedBlockIds,
    addBlock,
    previousSummary,
    query,
    queryInHistory: prepared.queryInHistory,
    warnings,
    placeholderActions,
    turn,
    historyCandidates,
    windowed,
    firstStep,
    isStep,
    tools,
    toolTokens,
    fixedTokens,
    layerFrames: { tokens: layerFrame, layers: framed },
    historyParts: prepared.parts,
  };
  if (tokensBefore !== undefined) resolved.historyTokensBefore = tokensBefore;
  const reservedIds = reservedIdsOf(prepared, turnSteps, prepared.queryInHistory ?? query, warnings);
  if (reservedIds !== undefined) resolved.reservedIds = reservedIds;
  // A frozen history's preparation is reused without measuring (nor checking) it again.
  const frozen = Object.isFrozen(request.history ?? []);
  if (madeFrom !== undefined) {
    if (frozen) resolved.frozenHistoryFrom = madeFrom;
    else resolved.historyMadeFrom = madeFrom;
  }
  if (frozen) {
    resolved.frozenHistory = {
      messages: prepared.messages,
      measures: prepared.measures,
      keptFrom: prepared.keptFrom,
    };
  }
  return resolved;
}

/**
 * The reserved ids of the call's history, steps and query, each warned; undefined when none
 * is (the history's measuring pass said whether it has one: no walk over it otherwise).
 */
function reservedIdsOf(
  prepared: PreparedHistory,
  steps: readonly Message[],
  query: Message | undefined,
  warnings: CompileWarning[],
): ReadonlySet<string> | undefined {
  const ids = new Set<string>();
  const note = (message: Message) => {
    if (isReservedMessageId(message.id)) ids.add(message.id);
  };
  if (prepared.reserved) prepared.messages.forEach(note);
  steps.forEach(note);
  if (query !== undefined) note(query);
  if (ids.size === 0) return undefined;
  let listed = 0;
  for (const id of ids) {
    if (++listed > LISTED_WARNINGS) {
      warnings.push({
        code: 'message-id-reserved',
        message: `${ids.size - LISTED_WARNINGS} more message ids are in the "layer:" namespace (the first ${LISTED_WARNINGS} are listed)`,
      });
      break;
    }
    warnings.push({
      code: 'message-id-reserved',
      message: `message id ${JSON.stringify(shorten(id, 60))} is in the "layer:" namespace of the layer messages ctxloom composes; the message keeps it, and a layer message of that id is sent as "<id>:<n>"`,
      messageId: id,
    });
  }
  return ids;
}

/** The drops of the last covered blocks, by their array (one per prepared history). */
const coveredMemo = new WeakMap<
  readonly ContextBlock[],
  { uncarried: ReadonlySet<string> | undefined; tool: string; drops: readonly DroppedBlock[] }
>();

/**
 * The drop of each covered block: `recallable` by `tool` when its message is `uncarried` (no
 * sent summary text carries it), else summarised. Kept for the blocks' array while the
 * uncarried set and the tool are the same: every step of a turn compiles the same prepared
 * history, and a long session's summary covers thousands of messages.
 */
function coveredDrops(
  covered: readonly ContextBlock[],
  uncarried: ReadonlySet<string> | undefined,
  tool: string,
): readonly DroppedBlock[] {
  const known = coveredMemo.get(covered);
  if (known !== undefined && known.uncarried === uncarried && known.tool === tool) return known.drops;
  const recallable: DropReason = { type: 'recallable', tool };
  const drops = covered.map((block): DroppedBlock => {
    const id = (block.metadata as { message: Message }).message.id;
    return { block, reason: uncarried?.has(id) === true ? recallable : SUMMARIZED_REASON };
  });
  coveredMemo.set(covered, { uncarried, tool, drops });
  return drops;
}

/** Index of the last user message (where the current turn starts), 0 when there is none. */
function lastUserIndex(messages: readonly Message[]): number {
  for (let index = messages.length - 1; index >= 0; index--) {
    if (messages[index]?.role === 'user') return index;
  }
  return 0;
}

/** Index of the last message with a tool call in `steps` (the newest step group), 0 when none. */
function lastToolCallIndex(steps: readonly Message[]): number {
  for (let index = steps.length - 1; index >= 0; index--) {
    const content = steps[index]?.content;
    if (Array.isArray(content) && content.some((part) => part.type === 'tool-call')) return index;
  }
  return 0;
}
