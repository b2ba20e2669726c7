import { buildReport } from './build-report.ts';
import { COMPRESSION_BLOCK_ID } from './compact.ts';
import type { CompactedCall, SummaryState } from './compact-call.ts';
import type { CompiledContext, CompileOptions, CompileRequest } from './compile-types.ts';
import type { ComposedCall } from './compose-call.ts';
import type { GatheredBlocks } from './gather-blocks.ts';
import type { CompactionAction } from './report.ts';
import type { ResolvedCall } from './resolve-call.ts';
import type { CompressionSummary } from './summarizer.ts';

/**
 * Stage 6, emit: lists every cut in order (placeholders, summary, retries, chunked cut,
 * trims), hands a new summary that was kept to `onSummary`, and returns the messages with
 * their report.
 */
export async function emitCall(input: {
  call: ResolvedCall;
  gathered: GatheredBlocks;
  request: CompileRequest;
  options: CompileOptions;
  compacted: CompactedCall;
  composed: ComposedCall;
  summary: SummaryState;
  /** The retries so far. */
  retries: readonly CompactionAction[];
  chunkTokens: number;
}): Promise<CompiledContext> {
  const { call, gathered, request, options, compacted, composed, summary } = input;
  const { selection, covered } = compacted;
  const actions: CompactionAction[] = [
    ...(request.compression?.actions ?? []),
    ...sentPlaceholders(call.placeholderActions, selection.kept),
    ...summary.actions,
    ...input.retries,
  ];
  if (compacted.chunked.length > 0) {
    actions.push({
      type: 'chunked',
      messages: compacted.chunked.length,
      tokens:
        compacted.historyDrops?.chunkedTokens ??
        compacted.chunked.reduce((sum, block) => sum + block.tokens, 0),
      chunkTokens: input.chunkTokens,
    });
  }
  actions.push(...compacted.actions);

  const summaryBlock = summary.block;
  // A summary is persisted as covering everything up to its last message; with history left
  // out by the window before it, that would claim messages the summary never saw.
  if (
    summaryBlock?.metadata.summarized === true &&
    options.onSummary !== undefined &&
    call.windowed.length === 0
  ) {
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

  const { firstPlan } = gathered;
  const report = buildReport({
    counter: call.counter,
    plan: firstPlan,
    messages: composed.messages,
    costs: composed.costs,
    total: composed.total,
    selection,
    dropped: compacted.dropped,
    fixedContexts: call.fixedContexts,
    systemPrompt: request.systemPrompt,
    query: call.queryInHistory ?? call.query,
    results: gathered.results,
    skippedSources: gathered.skippedSources,
    actions,
    layers: call.layers,
    share: call.share,
    order: call.policy.order ?? 'cache-friendly',
    tools: call.tools,
    toolTokens: call.toolTokens,
    warnings: call.warnings,
    fixedBlockIds: call.fixedBlockIds,
    ...(composed.historyRun === undefined ? {} : { historyRun: composed.historyRun }),
    ...(composed.keptHistory === undefined ? {} : { keptHistory: composed.keptHistory }),
    ...(composed.carried === undefined ? {} : { carried: composed.carried }),
    ...(compacted.historyDrops === undefined ? {} : { historyDrops: compacted.historyDrops }),
  });
  return {
    messages: composed.messages,
    systemPrompt: request.systemPrompt,
    contexts: composed.contexts,
    history: composed.history,
    steps: composed.steps,
    query: call.queryInHistory ?? call.query,
    maxOutputTokens: firstPlan.outputReserve,
    report,
    kept: selection.kept,
    dropped: compacted.dropped,
  };
}

/**
 * The placeholders of outputs the call sends. An earlier output that was then dropped —
 * recalled, summarised, recallable or outside the window — is listed by its drop (its entry's
 * tokens and preview are the placeholder's), not again here: a long tool session's every
 * earlier output would otherwise be listed in every call's report, a list (and a call log)
 * that grows with the session instead of with the window (decision 079).
 */
function sentPlaceholders(
  actions: readonly CompactionAction[],
  kept: readonly { id: string }[],
): readonly CompactionAction[] {
  const unseen = new Set<string>();
  for (const action of actions) if (action.type === 'placeholder') unseen.add(action.blockId);
  if (unseen.size === 0) return actions;
  // One lookup per kept block in the few placeholders' ids (no set of every kept id), until all are found.
  const sent = new Set<string>();
  for (let index = 0; index < kept.length && unseen.size > 0; index++) {
    const id = (kept[index] as { id: string }).id;
    if (unseen.delete(id)) sent.add(id);
  }
  return actions.filter((action) => action.type !== 'placeholder' || sent.has(action.blockId));
}
