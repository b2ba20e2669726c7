import { recordArtifactPageBudget } from './artifact-pages.ts';
import { compactCall, type SummaryState } from './compact-call.ts';
import type { CompiledContext, CompileOptions, CompileRequest } from './compile-types.ts';
import { composeCall } from './compose-call.ts';
import { emitCall } from './emit-call.ts';
import { CtxloomError } from './errors.ts';
import { gatherBlocks } from './gather-blocks.ts';
import { cutsPastStored, recordHistoryCut } from './history-cut.ts';
import { historyBlockId } from './measure-messages.ts';
import type { Message } from './message.ts';
import type { BlockSummary, CompactionAction } from './report.ts';
import { MessageShapeError, messagesIssue, requestError, requestFieldsIssue } from './request-issue.ts';
import { resolveCall } from './resolve-call.ts';
import { createCallSelector } from './select-call.ts';
import type { CompressionSummary } from './summarizer.ts';

const MAX_RETRIES = 3;
/**
 * Extra tokens reserved per retry on top of the overshoot: re-selecting changes which blocks
 * meet in the joined layers, and with them the few tokens their boundaries merge or split.
 */
const RETRY_SLACK_TOKENS = 8;
/** Most fitted compiles of one tool step (decision 070): the first, and two in less room. */
const MAX_FITS = 3;

/**
 * Compiles the exact input of one model call: resolve (`resolveCall`) → gather
 * (`gatherBlocks`) → select (`createCallSelector`) → compact (`compactCall`) → compose
 * (`composeCall`, which counts what will be sent) → emit (`emitCall`, the report). Over budget
 * is never an exception: the report says what was dropped, trimmed or summarised, and why.
 * A request that is not of its type (a message whose content is neither a string nor parts, a
 * part without its text, a tool message whose content is text rather than tool-result parts,
 * a query of `null` or of a role other than `user`, a `phase` or
 * `progress` out of range, a summary that is not a string) throws `invalid-argument` with the
 * path of the first wrong value (`history.3.content`).
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
  const fields = requestFieldsIssue(request);
  if (fields !== undefined) throw requestError(fields);
  let compiled: CompiledContext;
  try {
    compiled = await compileCall(request, options);
  } catch (error) {
    // The messages are walked only when a compile fails (a walk per compile would read every
    // message of a long history): a malformed one is named, not left as a TypeError. The
    // measuring pass's own check (an unknown role, no id, a part its role cannot carry) knows
    // the message, not its place: the walk names it (`history.3.role`).
    if (CtxloomError.is(error) && !(error instanceof MessageShapeError)) throw error;
    const issue = messagesIssue(request);
    throw issue === undefined ? error : requestError(issue, error);
  }
  // Recorded from the call that is sent, never from a discarded attempt.
  if (options.historyCut !== undefined) recordHistoryCut(options.historyCut, compiled);
  const store = options.toolResults?.store;
  if (store !== undefined) {
    // `open_artifact` sizes the next page to what this call leaves.
    const { inputBudget, totalTokens } = compiled.report;
    recordArtifactPageBudget(store, {
      counter: options.counter,
      inputBudget,
      remainingTokens: inputBudget - totalTokens,
    });
  }
  return compiled;
}

async function compileCall(request: CompileRequest, options: CompileOptions): Promise<CompiledContext> {
  const squeezable =
    options.toolResults !== undefined && (request.steps ?? []).some((message) => message.role === 'tool');
  if (!squeezable) return compileOnce(request, options, false);
  // In a tool loop, the current turn's earlier tool outputs become placeholders before any
  // history goes: they sit after the query, so the cached history prefix stays intact. A
  // summary is handed on only with the compile that is sent.
  let pending: CompressionSummary | undefined;
  const deferred: CompileOptions = {
    ...options,
    onSummary: (summary) => {
      pending = summary;
    },
  };
  let compiled = await compileOnce(request, deferred, false);
  // History behind a stored cut is not what this call lacks room for.
  if (cutsPastStored(options.historyCut, compiled)) {
    pending = undefined;
    compiled = await compileOnce(request, deferred, true);
  }
  // An output of the turn that still did not fit is read by pages, never dropped: every
  // output shares the room the history had, newest first (decision 070).
  let room = roomForSteps(request.steps ?? [], compiled);
  // Fitted, the room is what the history sent less the overshoot; a fitted call still over
  // (an older page's stub, a brief placeholder, a call's framing past the room) is fitted
  // again in less room, so the newest outputs give way before the budget does.
  for (let fit = 1; room !== undefined; fit++) {
    pending = undefined;
    compiled = await compileOnce(request, deferred, true, room);
    const over = compiled.report.totalTokens - compiled.report.inputBudget;
    if (over <= 0 || room === 0 || fit === MAX_FITS) break;
    // What the steps took less the overshoot: the room the other layers left them this time.
    const history = compiled.report.layers.find((layer) => layer.layer === 'history');
    room = Math.max(0, Math.min(room, history?.tokens ?? 0) - over);
  }
  if (pending !== undefined) await options.onSummary?.(pending);
  return compiled;
}

/**
 * The tokens the turn's steps may take when `compiled` could not send them as they are: the
 * history layer's grant when it dropped, for lack of room, a step message that carries a tool
 * output; what the history sent less the overshoot when every step was sent but the call is
 * still over its budget (the steps' pages were sized beside the fixed layers only, and the
 * summary or the TODO view took their room). Undefined when the call fits with every step.
 */
function roomForSteps(steps: readonly Message[], compiled: CompiledContext): number | undefined {
  const history = compiled.report.layers.find((layer) => layer.layer === 'history');
  if (history === undefined) return undefined;
  // Steps that are sent are the last history blocks sent: only those are read.
  const sent = new Set<string>();
  for (let at = Math.max(0, history.kept.length - steps.length); at < history.kept.length; at++)
    sent.add((history.kept[at] as BlockSummary).id);
  const lost = steps.some((message) => message.role === 'tool' && !sent.has(historyBlockId(message)));
  if (lost && history.dropped.some((entry) => entry.reason.type === 'over-budget'))
    return history.grantTokens ?? 0;
  const { totalTokens, inputBudget } = compiled.report;
  if (lost || totalTokens <= inputBudget) return undefined;
  return Math.max(0, history.tokens - (totalTokens - inputBudget));
}

async function compileOnce(
  request: CompileRequest,
  options: CompileOptions,
  squeezeSteps: boolean,
  stepRoom?: number,
): Promise<CompiledContext> {
  const call = resolveCall(request, options, squeezeSteps, stepRoom);
  const gathered = await gatherBlocks(call, request, options);
  const selector = createCallSelector(call, gathered, options);
  // Select and compact, retried when the exact count of the composed messages overshoots.
  const summary: SummaryState = { block: undefined, actions: [], summarized: [] };
  const retries: CompactionAction[] = [];
  let extraReserve = 0;
  for (let attempt = 0; ; attempt++) {
    const compacted = await compactCall({
      call,
      gathered,
      selector,
      request,
      options,
      extraReserve,
      summary,
      summarize: attempt === 0,
    });
    const composed = composeCall(call, request, compacted.selection);
    const inputBudget = gathered.firstPlan.inputBudget;
    if (composed.total > inputBudget && compacted.selection.kept.length > 0 && attempt < MAX_RETRIES) {
      retries.push({ type: 'retry', overshootTokens: composed.total - inputBudget });
      extraReserve += composed.total - inputBudget + attempt * RETRY_SLACK_TOKENS;
      continue;
    }
    return emitCall({
      call,
      gathered,
      request,
      options,
      compacted,
      composed,
      summary,
      retries,
      chunkTokens: selector.chunkTokens,
    });
  }
}
