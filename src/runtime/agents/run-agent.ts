import type { BaseMessage } from '@langchain/core/messages';
import { isStepCount } from 'ai';
import { toolDefinitions } from '../../ai-sdk/ctxloom-prepare-step.ts';
import { openArtifactTool } from '../../ai-sdk/open-artifact-tool.ts';
import { recompileEachStep, toStepCall } from '../../ai-sdk/recompile-each-step.ts';
import { createInMemoryArtifactStore, OPEN_ARTIFACT_TOOL } from '../../core/artifact-handles.ts';
import { compileContext } from '../../core/compile.ts';
import type { CompiledContext, CompileRequest } from '../../core/compile-types.ts';
import { createLayerRegistry } from '../../core/layers.ts';
import type { Message } from '../../core/message.ts';
import type { ContextSource } from '../../core/source.ts';
import type { CompressionSummary } from '../../core/summarizer.ts';
import type { TokenCounter } from '../../core/tokens.ts';
import { toLangChain } from '../../langchain/index.ts';
import { newLocalId, type StateBuilder } from '../../state/index.ts';
import type { PlaceholderLocale, SessionBudget, SessionLayers } from '../../workspace/index.ts';
import { collectAgentContext } from './collect-agent-context.ts';
import type { AgentDefinition } from './define-agent.ts';
import type { ProcessRule } from './process-rules.ts';
import { placeholderLocaleOfRun, sessionLayersOfRun } from './session-history.ts';
import { type AgentCallRequest, streamAgentCall } from './stream-agent-call.ts';

/** Input of {@link runAgent}. */
export interface RunAgentInput {
  agent: AgentDefinition;
  sb: StateBuilder;
  rule: ProcessRule;
  counter: TokenCounter;
  query?: string;
  framework?: string;
  signal?: AbortSignal;
  /** Sources read from this call's state (e.g. the compression views), after `agent.sources`. */
  sources?: readonly ContextSource[];
  /** The compact stage run before the model call (triggers, `/compress` clipping). Default: compile once. */
  compact?: CompactStage;
  /**
   * Structured output (the AI SDK's `Output.object({ schema })`): the model's final answer is
   * parsed and validated by the SDK and returned as {@link AgentRunResult.output}; output
   * that does not match throws the SDK's `NoObjectGeneratedError`.
   */
  output?: AgentCallRequest['output'];
  /**
   * Language of the placeholders of curated history (the session manifest's
   * `chatHistory.placeholderLocale`). Default: the graph run's
   * `configurable.ctxloom_placeholder_locale` (the session engine sets the manifest's for a
   * process turn), else `zh`, the manifest's default.
   */
  placeholderLocale?: PlaceholderLocale;
  /**
   * The session manifest's layers for this call (`sessionLayers` of `ctxloom/workspace`):
   * prompts and pinned blocks in the request, retrieval after the agent's sources, the turn's
   * user message with its references merged, and the call compiled under the manifest's budget
   * (window — capped by `agent.window` —, output reserve, allocations, `last-n` history window)
   * and composition (order, merge, shared layers — a process rule that shares nothing still
   * shares nothing); with their `history` (a long session, decision 066), every compile of the
   * call is fitted by the session — its cut, rolling summary and recall — and the agent's own
   * `summarizer` is not used. Default: the graph run's `configurable.ctxloom_session_layers` (the
   * session engine sets them for a process turn of a workspace session), else none: the
   * agent's window and core's defaults.
   */
  sessionLayers?: SessionLayers;
  /**
   * Whether the call's tokens reach LangGraph's `messages` stream mode (and the session
   * engine's stream of a process turn). Default true. Pass false for a call whose answer is no
   * message of the conversation (a plan, a reflection, a routing line, a worker's result): its
   * model runs carry LangGraph's `nostream` tag.
   */
  stream?: boolean;
  /** Receives every compile that is sent, with its step (0, then one per tool-loop step), before the model call. */
  onCompile?: (compiled: CompiledContext, step: number) => void;
}

/** Input of a {@link CompactStage}: the collected request and a compile function bound to the call. */
export interface CompactStageInput {
  agent: AgentDefinition;
  sb: StateBuilder;
  request: CompileRequest;
  /** Compiles through core; `maxInputTokens` clips below the window (reported like any cut). */
  compile: (request: CompileRequest, limits?: { maxInputTokens?: number }) => Promise<CompiledContext>;
}

/**
 * The compact stage before each model call: compiles the request (possibly again, with less
 * history) and returns what is sent. May write through `sb` (the node's one patch); throws a
 * `CtxloomError('over-budget')` when the request cannot fit.
 */
export type CompactStage = (input: CompactStageInput) => Promise<CompiledContext>;

/** What one agent call produced. `messages` is the delta to persist — never the transcript. */
export interface AgentRunResult {
  messages: BaseMessage[];
  text: string;
  /** The first model call's compile. */
  compiled: CompiledContext;
  /** Every model call's compile, in order (one per step of the tool loop), each with its report. */
  steps: CompiledContext[];
  /** The validated structured output when {@link RunAgentInput.output} was given. */
  output?: unknown;
}

/** An agent call compiled and ready to send, with how its later steps compile. */
interface PreparedAgentCall {
  /** The agent as this call sends it: its window capped by the session's, the session's tools added. */
  agent: AgentDefinition;
  compiled: CompiledContext;
  /** The request and limits the compact stage settled on for call 1. */
  base: { request: CompileRequest; limits: { maxInputTokens?: number } };
  compileStep: (request: CompileRequest, limits?: { maxInputTokens?: number }) => Promise<CompiledContext>;
}

/**
 * Collects and compiles an agent's first call exactly as {@link runAgent} sends it (sources,
 * compact stage, tools counted), without calling the model. What the compact stage writes
 * goes into `input.sb`'s patch; a preview discards it.
 */
async function prepareAgentCall(
  input: Omit<RunAgentInput, 'output' | 'onCompile' | 'stream'>,
): Promise<PreparedAgentCall> {
  const layers = input.sessionLayers ?? sessionLayersOfRun();
  const { sb, rule } = input;
  // The call's agent: under a session's budget, its window is the session's, capped by the
  // agent's own (its model's); the compact stage's triggers read it too (decision 062).
  const history = layers?.history;
  // Where the call's tool outputs kept out of the prompt go: the placeholders name it.
  const store = createInMemoryArtifactStore();
  // A long session offers an agent that takes tools its `search_history` (decision 066), whose
  // long hits go in the same store.
  const takesTools = input.agent.maxSteps > 1;
  // The tool loop's messages so far: the search covers them too (decision 070, fifth amendment).
  let steps: readonly Message[] = [];
  const offered = history === undefined || !takesTools ? {} : await history.tools(store, () => steps);
  const own = { ...offered, ...input.agent.tools };
  // A step dropped for room is recallable by the offered search, unless the agent has its own.
  const recallTool = Object.keys(offered).find((name) => own[name] === offered[name]);
  // An agent that takes tools reads what its placeholders name with `open_artifact`, over this
  // store (ctxloom's, whatever the agent defines under that name), as `createReactAgent`'s does.
  const agent = callAgent(
    !takesTools || Object.keys(own).length === 0
      ? input.agent
      : { ...input.agent, tools: { ...own, [OPEN_ARTIFACT_TOOL]: openArtifactTool(store) } },
    layers?.budget,
  );
  const request = collectAgentContext({
    agent,
    sb,
    rule,
    ...(input.query === undefined ? {} : { query: input.query }),
    ...(input.framework === undefined ? {} : { framework: input.framework }),
    placeholderLocale: input.placeholderLocale ?? placeholderLocaleOfRun() ?? 'zh',
    ...(layers === undefined ? {} : { sessionLayers: layers }),
  });
  if (input.signal !== undefined) request.signal = input.signal;
  const sources = [...(agent.sources ?? []), ...(input.sources ?? []), ...(layers?.sources ?? [])];
  const tools = await toolDefinitions(agent.tools);
  const budget = layers?.budget;
  const composition = layers?.composition;
  // The request and limits of the last compile the stage made: later steps start from them.
  let last: PreparedAgentCall['base'] = { request, limits: {} };
  const compileOnce = (
    compileRequest: CompileRequest,
    limits: { maxInputTokens?: number },
    extra: readonly ContextSource[],
    stableLayers: readonly string[] = [],
  ) => {
    const callSources = [...sources, ...extra];
    return compileContext(compileRequest, {
      counter: input.counter,
      window: agent.window,
      ...(budget === undefined ? {} : { outputReserveRatio: budget.outputReserveRatio }),
      ...(budget?.allocationRatios === undefined ? {} : { allocationRatios: budget.allocationRatios }),
      ...(budget?.maxHistoryMessages === undefined ? {} : { maxHistoryMessages: budget.maxHistoryMessages }),
      ...(limits.maxInputTokens === undefined ? {} : { maxInputTokens: limits.maxInputTokens }),
      // The process rule (a map-reduce worker shares nothing) and the manifest must both allow it.
      enableShareContext: rule.enableShareContext && (composition?.enableShareContext ?? true),
      policy: {
        alwaysInclude: rule.alwaysInclude,
        ...(composition === undefined ? {} : { order: composition.order, merge: composition.merge }),
      },
      ...(callSources.length === 0 ? {} : { sources: callSources }),
      tools,
      toolResults: { store, ...(recallTool === undefined ? {} : { recallTool }) },
      // A long session's stable layers go before the history (decisions 063, 068).
      ...(stableLayers.length === 0 ? {} : { layers: createLayerRegistry([], { stable: stableLayers }) }),
      // A long session's history is the session's: its summary covers what precedes the cut,
      // and nothing an agent summarises replaces it (decision 066).
      ...(history !== undefined || agent.summarizer === undefined ? {} : { summarizer: agent.summarizer }),
      ...(history === undefined
        ? {
            onSummary: (summary: CompressionSummary) =>
              sb.compression.persistCompression(summary.summary, summary.throughMessageId),
          }
        : {}),
    });
  };
  // Under a long session's history every compile — each compact-stage attempt, each step of
  // the tool loop — is fitted by the session: its cut, summary and recall (decision 066).
  const compileStep: PreparedAgentCall['compileStep'] = (compileRequest, limits = {}) => {
    steps = compileRequest.steps ?? [];
    return history === undefined
      ? compileOnce(compileRequest, limits, [])
      : history.fit(
          compileRequest,
          (fitted, extra, fit) => compileOnce(fitted, limits, extra, fit?.stableLayers),
          {
            // A compact stage's soft trigger (seed 004) stands: the session's cut moves only
            // when history would be dropped.
            ownStage: input.compact !== undefined,
          },
        );
  };
  const compile = (compileRequest: CompileRequest, limits: { maxInputTokens?: number } = {}) => {
    last = { request: compileRequest, limits };
    return compileStep(compileRequest, limits);
  };
  const compiled =
    input.compact === undefined
      ? await compile(request)
      : await input.compact({ agent, sb, request, compile });
  return { agent, compiled, base: last, compileStep };
}

/**
 * The agent as one call sees it: with a session's budget, its window is the smaller of the
 * session's and its own (the agent's is its model's window, which no manifest can widen).
 */
function callAgent(agent: AgentDefinition, budget: SessionBudget | undefined): AgentDefinition {
  if (budget === undefined || budget.window >= agent.window) return agent;
  return { ...agent, window: budget.window };
}

/**
 * The first call an agent would send now, compiled exactly as {@link runAgent} compiles it
 * (same collector, sources, compact stage and budget), with no model call. Give it a
 * throwaway StateBuilder over the current state: what the compact stage would write stays in
 * that builder's patch. A session engine's process preview is built on it.
 */
export async function compileAgentCall(
  input: Omit<RunAgentInput, 'output' | 'onCompile' | 'signal' | 'stream'>,
): Promise<CompiledContext> {
  return (await prepareAgentCall(input)).compiled;
}

/**
 * One agent call: collect the context from the state snapshot, compile it with the core
 * pipeline (budget, layers, process rule), emit for the AI SDK, stream the model's answer
 * (with tools, up to `agent.maxSteps` steps; each step's tokens reach the graph run's
 * callbacks, so LangGraph's `messages` stream mode gets them as they arrive), and return the
 * new assistant/tool messages with stable ids.
 * A summary the pipeline produces is persisted through `compression.persistCompression`.
 */
export async function runAgent(input: RunAgentInput): Promise<AgentRunResult> {
  const { agent, compiled, base, compileStep } = await prepareAgentCall(input);
  // Every later step of the tool loop is compiled again, under the same budget: the request
  // (and limits) the compact stage settled on for call 1, plus the loop's messages so far.
  const steps: CompiledContext[] = [compiled];
  input.onCompile?.(compiled, 0);
  const first = toStepCall(compiled);
  // Ids are generated here, never taken from the provider's response id: a gateway that
  // repeats a response id would otherwise make one turn's reply replace another's.
  const result = await streamAgentCall({
    request: {
      model: agent.model,
      instructions: first.instructions,
      messages: first.messages,
      maxOutputTokens: first.maxOutputTokens,
      tools: agent.tools,
      stopWhen: isStepCount(agent.maxSteps),
      prepareStep: recompileEachStep(async (produced, stepNumber) => {
        const next = await compileStep({ ...base.request, steps: produced }, base.limits);
        steps.push(next);
        input.onCompile?.(next, stepNumber);
        return next;
      }),
      ...(input.signal === undefined ? {} : { abortSignal: input.signal }),
      ...(input.output === undefined ? {} : { output: input.output }),
    },
    idPrefix: `${agent.id}:${newLocalId()}`,
    name: agent.id,
    ...(input.stream === undefined ? {} : { stream: input.stream }),
  });
  // Every step's messages (tool calls and results too), not only the final step's.
  return {
    messages: toLangChain(result.messages),
    text: result.text,
    compiled,
    steps,
    ...(input.output === undefined ? {} : { output: result.output }),
  };
}
