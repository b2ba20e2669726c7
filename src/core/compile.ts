import { type ContextBlock, createBlock } from './block.ts';
import { buildReport } from './build-report.ts';
import { dropHistoryInChunks } from './chunk-history.ts';
import { collectBlocks, renderContexts, type SourceResult } from './collector.ts';
import {
  COMPRESSION_BLOCK_ID,
  compressionBlock,
  coveredPrefix,
  droppedHistory,
  errorLines,
  summarizeDropped,
  trimDropped,
  withSummary,
} from './compact.ts';
import type { CompiledContext, CompileOptions, CompileRequest } from './compile-types.ts';
import { type ComposePolicy, compose, layerFilter, layerOf, toQueryMessage } from './compose.ts';
import { HISTORY_SOURCE, type HistoryBlockMetadata, historyBlockId, measureMessage } from './history.ts';
import { assertContextKey, type ContextKey, createLayerRegistry } from './layers.ts';
import { type Message, messageText } from './message.ts';
import type { CompactionAction, CompileWarning } from './report.ts';
import { resolveBudget } from './resolve-budget.ts';
import { type DroppedBlock, type DropReason, type Selection, selectBlocks } from './select.ts';
import type { CompressionSummary } from './summarizer.ts';
import { countMessage } from './tokens.ts';
import { countToolDefinitions } from './tool-definitions.ts';
import { placeholderToolResults } from './tool-result-placeholders.ts';
import { prepareHistory, turnHistoryBlocks } from './turn-history.ts';
import { splitUnreachableHistory, withUnreachable } from './unreachable-history.ts';

const SEPARATOR_TOKENS = 1;
const SUMMARIZED_REASON: DropReason = Object.freeze({ type: 'summarized', into: 'compression__context' });
const MAX_RETRIES = 3;
/**
 * Extra tokens reserved per retry on top of the overshoot: re-selecting changes which blocks
 * meet in the joined layers, and with them the few tokens their boundaries merge or split.
 */
const RETRY_SLACK_TOKENS = 8;

/**
 * Compiles the exact input of one model call: resolve → gather → select → compact →
 * compose, then counts what will be sent. Over budget is never an exception: the report
 * says what was dropped, trimmed or summarised, and why.
 * @example
 * const { messages, report } = await compileContext(
 *   { systemPrompt: 'You are a tutor.', history, query: 'What is a Raft term?' },
 *   { counter: getTokenCounter('gpt-4o'), window: 128_000, sources: [retrieval] },
 * );
 */
export async function compileContext(
  request: CompileRequest,
  options: CompileOptions,
): Promise<CompiledContext> {
  const squeezable =
    options.toolResults !== undefined && (request.steps ?? []).some((message) => message.role === 'tool');
  if (!squeezable) return compileOnce(request, options, false);
  // In a tool loop, the current turn's earlier tool outputs become placeholders before any
  // history goes: they sit after the query, so the cached history prefix stays intact.
  let pending: CompressionSummary | undefined;
  const first = await compileOnce(
    request,
    {
      ...options,
      onSummary: (summary) => {
        pending = summary;
      },
    },
    false,
  );
  const historyDropped = first.dropped.some(
    (entry) => entry.block.layer === 'history' && entry.reason.type === 'over-budget',
  );
  if (!historyDropped) {
    if (pending !== undefined) await options.onSummary?.(pending);
    return first;
  }
  return compileOnce(request, options, true);
}

async function compileOnce(
  request: CompileRequest,
  options: CompileOptions,
  squeezeSteps: boolean,
): Promise<CompiledContext> {
  const { counter } = options;
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

  // 1 resolve: fixed layers, candidates handed in, layers the share switch leaves out.
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
  });
  const queryInHistory = prepared.queryInHistory;
  const warnings: CompileWarning[] = [...prepared.warnings];
  const placeholderActions: CompactionAction[] = [...prepared.actions];
  let turnSteps = steps;
  if (toolResults !== undefined) {
    const replaced = placeholderToolResults({
      messages: steps,
      // Squeezed, the turn's earlier outputs count as earlier-turn ones.
      currentFrom: squeezeSteps ? lastToolCallIndex(steps) : currentFrom - historyLength,
      policy: toolResults,
      maxTokens: maxPlaceholderTokens,
      counter,
    });
    turnSteps = replaced.messages;
    placeholderActions.push(...replaced.actions);
  }
  const {
    turn,
    blocks: historyCandidates,
    covered,
    firstStep,
    isStep,
  } = turnHistoryBlocks({ prepared, steps: turnSteps, counter, throughMessageId });
  for (const block of covered) excluded.push({ block, reason: SUMMARIZED_REASON });
  const tools = options.tools ?? [];
  const toolTokens = countToolDefinitions(tools, counter);

  const fixedMessages = compose({
    ...(request.systemPrompt === undefined ? {} : { systemPrompt: request.systemPrompt }),
    contexts: fixedContexts,
    ...(query === undefined ? {} : { query: queryInHistory ?? query }),
    policy,
  });
  const layerFrame = counter.overhead.perMessage + counter.countText('system');
  const contextLayers = new Set(
    layers.list().filter((layer) => layer.kind === 'context' && included(layer.name)),
  );
  const fixedTokens = counter.countMessages(fixedMessages) + contextLayers.size * layerFrame + toolTokens;

  // 2 gather: sources run concurrently with their allocations.
  const activeSources = (options.sources ?? []).filter((source) => included(source.layer));
  const skippedSources = (options.sources ?? []).filter((source) => !included(source.layer));
  const names = new Set<string>();
  for (const source of activeSources) names.add(source.name);
  for (const block of candidates) names.add(block.source);
  if (historyCandidates.length > 0) names.add(HISTORY_SOURCE);
  const allocateInput = { ...phaseOf(request), sources: [...names] };
  const firstPlan = budget.allocate({ ...allocateInput, fixedTokens });
  const queryText = query === undefined ? '' : messageText(query);
  const results: SourceResult[] = await collectBlocks({
    sources: activeSources,
    request: {
      query: queryText,
      history: turn,
      counter,
      ...phaseOf(request),
      ...(request.signal === undefined ? {} : { signal: request.signal }),
      ...(request.metadata === undefined ? {} : { metadata: request.metadata }),
    },
    allocations: firstPlan.allocations,
    layers,
  });
  for (const result of results) for (const block of result.blocks) addBlock(block);

  const sourcePriorities: Record<string, number> = {
    history: options.historyPriority ?? 0.9,
    compression: 1,
  };
  for (const source of activeSources) sourcePriorities[source.name] = source.priority;
  const layerOrder = layers.list().map((layer) => layer.name);
  // `candidates` holds no history yet: history blocks are never pinned, and a long history
  // is read once below, not by these passes.
  const pinnedWanted = candidates
    .filter((block) => block.pinned === true)
    .reduce((sum, block) => sum + block.tokens, 0);
  // No layer can be granted more than the first plan hands out (later plans reserve more);
  // the sum guards against a custom budget manager that allocates past its input budget.
  const grantable = Object.values(firstPlan.allocations).reduce(
    (sum, tokens) => sum + tokens,
    firstPlan.unallocated,
  );
  const { reachable, unreachable, unreachableTokens } = splitUnreachableHistory(
    historyCandidates,
    Math.max(firstPlan.inputBudget, grantable),
  );
  // History goes last (selection ranks within a layer, so its position changes nothing).
  const selectable = candidates.concat(reachable);

  // 3 select and 4 compact, retried when the exact count of the composed messages overshoots.
  const actions: CompactionAction[] = [];
  const chunkTokens = Math.floor(budgetPreview * (options.historyChunkRatio ?? 1 / 3));
  let chunkedBlocks: ContextBlock[] = [];
  let extraReserve = 0;
  let summaryBlock: ContextBlock | undefined;
  let summaryActions: CompactionAction[] = [];
  let summarized: Message[] = [];
  for (let attempt = 0; ; attempt++) {
    let pool = summaryBlock === undefined ? selectable : withSummary(selectable, summaryBlock);
    const run = (blocks: readonly ContextBlock[]) => {
      const reserve = fixedTokens + extraReserve;
      const pinnedBudget = Math.max(0, firstPlan.inputBudget - reserve);
      const fixed = reserve + Math.min(pinnedWanted, pinnedBudget);
      const plan = budget.allocate({ ...allocateInput, fixedTokens: fixed });
      const selection = selectBlocks({
        blocks,
        plan,
        pinnedBudget,
        sourcePriorities,
        layerOrder,
        separatorTokens: SEPARATOR_TOKENS,
      });
      const full =
        unreachable.length === 0 ? selection : withUnreachable(selection, unreachable, unreachableTokens);
      if (chunkTokens <= 0) return full;
      const chunked = dropHistoryInChunks(
        full,
        historyCandidates,
        chunkTokens,
        firstStep < 0 ? historyCandidates.length - 1 : firstStep,
      );
      chunkedBlocks = chunked.added;
      return chunked.selection;
    };
    let selection: Selection = run(pool);

    if (attempt === 0) {
      // Summarise what fell out; when the summary itself displaces more history, summarise
      // again over everything dropped (once), so nothing leaves the window unaccounted for.
      let lost = droppedHistory(selection.dropped);
      for (let pass = 0; pass < 2 && lost.length > 0; pass++) {
        const summary = await summarizeDropped({
          messages: lost,
          previousSummary,
          summarizer: options.summarizer,
          maxTokens:
            options.summaryMaxTokens ?? Math.min(2000, Math.max(64, Math.floor(firstPlan.available * 0.1))),
          counter,
          droppedTokens: lost.reduce((sum, message) => sum + measureMessage(message, counter).tokens, 0),
          errorLines: errorLines(lost),
          ...(request.signal === undefined ? {} : { signal: request.signal }),
        });
        if (summary === undefined || !included('compression__context')) break;
        summaryBlock = summary.block;
        summaryActions = summary.actions;
        summarized = lost.slice(0, summary.coveredCount);
        pool = withSummary(selectable, summaryBlock);
        selection = run(pool);
        const after = droppedHistory(selection.dropped);
        if (after.length <= lost.length) break;
        lost = after;
      }
    }

    const trimmed = trimDropped(selection, counter, {
      minTrimTokens: options.minTrimTokens ?? 24,
      separatorTokens: SEPARATOR_TOKENS,
      compactable,
      trimHistory: summaryBlock === undefined,
      candidates: pool,
    });
    selection = trimmed.selection;
    const covered =
      summarized.length === 0
        ? []
        : coveredPrefix(
            historyCandidates.map((block) => (block.metadata as HistoryBlockMetadata).message),
            summarized,
            selection.dropped,
          );
    const summarizedIds = new Set(covered.map(historyBlockId));
    const dropped = [
      ...excluded,
      ...(summarizedIds.size === 0
        ? selection.dropped
        : selection.dropped.map(
            (entry): DroppedBlock =>
              summarizedIds.has(entry.block.id) && entry.reason.type === 'over-budget'
                ? { block: entry.block, reason: SUMMARIZED_REASON }
                : entry,
          )),
    ];

    // 5 compose, then count exactly what is sent.
    // Kept blocks come in collection order, so history blocks are already oldest first.
    const keptHistory: Message[] = [];
    const keptSteps: Message[] = [];
    const historyCosts: number[] = [];
    const keptContext: ContextBlock[] = [];
    for (const block of selection.kept) {
      if (block.layer === 'history') {
        const message = (block.metadata as HistoryBlockMetadata).message;
        (isStep(block) ? keptSteps : keptHistory).push(message);
        historyCosts.push(block.tokens);
      } else {
        keptContext.push(block);
      }
    }
    const contexts = { ...fixedContexts, ...renderContexts(keptContext) };
    const messages = compose({
      ...(request.systemPrompt === undefined ? {} : { systemPrompt: request.systemPrompt }),
      contexts,
      history: keptHistory,
      ...(query === undefined ? {} : { query: queryInHistory ?? query }),
      steps: keptSteps,
      policy,
    });
    // Count what is emitted: every message is a separate API field, so the request costs the
    // request overhead plus each message's own cost (memoised per message, exact).
    let historyIndex = 0;
    const costs = messages.map((message) =>
      layerOf(message) === 'history'
        ? (historyCosts[historyIndex++] ?? measureMessage(message, counter).tokens)
        : countMessage(counter, message),
    );
    const total =
      (messages.length === 0 ? 0 : counter.overhead.perRequest + costs.reduce((sum, cost) => sum + cost, 0)) +
      toolTokens;
    const inputBudget = firstPlan.inputBudget;
    if (total > inputBudget && selection.kept.length > 0 && attempt < MAX_RETRIES) {
      actions.push({ type: 'retry', overshootTokens: total - inputBudget });
      extraReserve += total - inputBudget + attempt * RETRY_SLACK_TOKENS;
      continue;
    }
    actions.unshift(...placeholderActions, ...summaryActions);
    if (chunkedBlocks.length > 0) {
      actions.push({
        type: 'chunked',
        messages: chunkedBlocks.length,
        tokens: chunkedBlocks.reduce((sum, block) => sum + block.tokens, 0),
        chunkTokens,
      });
    }
    actions.push(...trimmed.actions);

    if (summaryBlock?.metadata.summarized === true && options.onSummary !== undefined) {
      const keptSummary = selection.kept.some((block) => block.id === COMPRESSION_BLOCK_ID);
      const last = covered.at(-1);
      if (keptSummary && last !== undefined) {
        const persisted: CompressionSummary = {
          summary: summaryBlock.content,
          throughMessageId: last.id,
          coveredMessageIds: covered.map((message) => message.id),
          tokens: summaryBlock.tokens,
        };
        await options.onSummary(persisted);
      }
    }

    // 6 report.
    const report = buildReport({
      counter,
      plan: firstPlan,
      messages,
      costs,
      total,
      selection,
      dropped,
      fixedContexts,
      systemPrompt: request.systemPrompt,
      query: queryInHistory ?? query,
      results,
      skippedSources,
      actions,
      layers,
      share,
      tools,
      toolTokens,
      warnings,
      fixedBlockIds,
    });
    return {
      messages,
      systemPrompt: request.systemPrompt,
      contexts,
      history: keptHistory,
      steps: keptSteps,
      query,
      maxOutputTokens: firstPlan.outputReserve,
      report,
      kept: selection.kept,
      dropped,
    };
  }
}

function phaseOf(request: CompileRequest) {
  return {
    ...(request.phase === undefined ? {} : { phase: request.phase }),
    ...(request.progress === undefined ? {} : { progress: request.progress }),
  };
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
