import { type ContextBlock, createBlock } from './block.ts';
import { capInputBudget, createBudgetManager } from './budget.ts';
import { buildReport } from './build-report.ts';
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
import { CtxloomError } from './errors.ts';
import {
  HISTORY_SOURCE,
  type HistoryBlockMetadata,
  historyBlockId,
  historyBlocks,
  measureMessage,
} from './history.ts';
import { assertContextKey, type ContextKey, createLayerRegistry } from './layers.ts';
import { type Message, messageText } from './message.ts';
import type { CompactionAction } from './report.ts';
import { type DroppedBlock, type DropReason, type Selection, selectBlocks } from './select.ts';
import type { CompressionSummary } from './summarizer.ts';
import { countMessage } from './tokens.ts';
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
  const { counter } = options;
  const layers = options.layers ?? createLayerRegistry();
  const share = options.enableShareContext ?? true;
  const policy: ComposePolicy = { ...options.policy, layers, enableShareContext: share };
  const included = layerFilter(policy, layers);
  const budget = resolveBudget(options);
  const compactable = (layer: string) => layers.has(layer) && layers.get(layer).compactable;

  // 1 resolve: fixed layers, candidates handed in, layers the share switch leaves out.
  const fixedContexts: Record<ContextKey, string> = {};
  const candidates: ContextBlock[] = [];
  const excluded: DroppedBlock[] = [];
  const addBlock = (block: ContextBlock) => {
    layers.get(block.layer);
    if (!included(block.layer)) excluded.push({ block, reason: { type: 'share-disabled' } });
    else if (!compactable(block.layer)) {
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
  const history = [...(request.history ?? [])];
  const queryInHistory = query !== undefined && history.at(-1)?.id === query.id ? history.pop() : undefined;
  const { blocks: historyCandidates, covered } = historyBlocks(
    history,
    counter,
    request.compression?.throughMessageId,
  );
  for (const block of covered) excluded.push({ block, reason: SUMMARIZED_REASON });

  const fixedMessages = compose({
    ...(request.systemPrompt === undefined ? {} : { systemPrompt: request.systemPrompt }),
    contexts: fixedContexts,
    history: queryInHistory === undefined ? [] : [queryInHistory],
    ...(query === undefined ? {} : { query }),
    policy,
  });
  const layerFrame = counter.overhead.perMessage + counter.countText('system');
  const contextLayers = new Set(
    layers.list().filter((layer) => layer.kind === 'context' && included(layer.name)),
  );
  const fixedTokens = counter.countMessages(fixedMessages) + contextLayers.size * layerFrame;

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
      history,
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
  let extraReserve = 0;
  let summaryBlock: ContextBlock | undefined;
  let summaryAction: CompactionAction | undefined;
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
      return unreachable.length === 0
        ? selection
        : withUnreachable(selection, unreachable, unreachableTokens);
    };
    let selection: Selection = run(pool);

    if (attempt === 0) {
      const lost = droppedHistory(selection.dropped);
      const summary = await summarizeDropped({
        messages: lost,
        previousSummary,
        summarizer: options.summarizer,
        maxTokens:
          options.summaryMaxTokens ?? Math.min(2000, Math.max(64, Math.floor(firstPlan.available * 0.1))),
        counter,
        droppedTokens: selection.dropped
          .filter((entry) => entry.block.layer === 'history' && entry.reason.type === 'over-budget')
          .reduce((sum, entry) => sum + entry.block.tokens, 0),
        errorLines: errorLines(lost),
        ...(request.signal === undefined ? {} : { signal: request.signal }),
      });
      if (summary !== undefined && included('compression__context')) {
        summaryBlock = summary.block;
        summaryAction = summary.action;
        summarized = lost.slice(0, summary.coveredCount);
        pool = withSummary(selectable, summaryBlock);
        selection = run(pool);
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
    const historyCosts: number[] = [];
    const keptContext: ContextBlock[] = [];
    for (const block of selection.kept) {
      if (block.layer === 'history') {
        keptHistory.push((block.metadata as HistoryBlockMetadata).message);
        historyCosts.push(block.tokens);
      } else {
        keptContext.push(block);
      }
    }
    if (queryInHistory !== undefined) {
      keptHistory.push(queryInHistory);
      historyCosts.push(measureMessage(queryInHistory, counter).tokens);
    }
    const contexts = { ...fixedContexts, ...renderContexts(keptContext) };
    const messages = compose({
      ...(request.systemPrompt === undefined ? {} : { systemPrompt: request.systemPrompt }),
      contexts,
      history: keptHistory,
      ...(query === undefined ? {} : { query }),
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
      messages.length === 0 ? 0 : counter.overhead.perRequest + costs.reduce((sum, cost) => sum + cost, 0);
    const inputBudget = firstPlan.inputBudget;
    if (total > inputBudget && selection.kept.length > 0 && attempt < MAX_RETRIES) {
      actions.push({ type: 'retry', overshootTokens: total - inputBudget });
      extraReserve += total - inputBudget + attempt * RETRY_SLACK_TOKENS;
      continue;
    }
    if (summaryAction !== undefined) actions.unshift(summaryAction);
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
    });
    return {
      messages,
      systemPrompt: request.systemPrompt,
      contexts,
      history: keptHistory,
      query,
      report,
      kept: selection.kept,
      dropped,
    };
  }
}

function resolveBudget(options: CompileOptions) {
  const manager = baseBudget(options);
  return options.maxInputTokens === undefined ? manager : capInputBudget(manager, options.maxInputTokens);
}

function baseBudget(options: CompileOptions) {
  if (options.budgetManager !== undefined) return options.budgetManager;
  if (options.window === undefined) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: 'compileContext needs `window` (the model context window in tokens) or a `budgetManager`',
      path: 'window',
    });
  }
  return createBudgetManager({
    modelContextWindow: options.window,
    ...(options.outputReserveRatio === undefined ? {} : { outputReserveRatio: options.outputReserveRatio }),
    ...(options.allocationRatios === undefined ? {} : { allocationRatios: options.allocationRatios }),
  });
}

function phaseOf(request: CompileRequest) {
  return {
    ...(request.phase === undefined ? {} : { phase: request.phase }),
    ...(request.progress === undefined ? {} : { progress: request.progress }),
  };
}
