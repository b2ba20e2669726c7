import type { BaseMessage } from '@langchain/core/messages';
import { generateText, isStepCount } from 'ai';
import { compileContext } from '../../core/compile.ts';
import type { CompiledContext, CompileRequest } from '../../core/compile-types.ts';
import { toAiSdk } from '../../core/emit/index.ts';
import type { Message } from '../../core/message.ts';
import type { ContextSource } from '../../core/source.ts';
import type { TokenCounter } from '../../core/tokens.ts';
import { toLangChain } from '../../langchain/index.ts';
import type { StateBuilder } from '../../state/index.ts';
import { collectAgentContext } from './collect-agent-context.ts';
import type { AgentDefinition } from './define-agent.ts';
import type { ProcessRule } from './process-rules.ts';

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
  compiled: CompiledContext;
}

/**
 * One agent call: collect the context from the state snapshot, compile it with the core
 * pipeline (budget, layers, process rule), emit for the AI SDK, call the model (with tools,
 * up to `agent.maxSteps` steps), and return the new assistant/tool messages with stable ids.
 * A summary the pipeline produces is persisted through `compression.persistCompression`.
 */
export async function runAgent(input: RunAgentInput): Promise<AgentRunResult> {
  const { agent, sb, rule } = input;
  const request = collectAgentContext({
    agent,
    sb,
    rule,
    ...(input.query === undefined ? {} : { query: input.query }),
    ...(input.framework === undefined ? {} : { framework: input.framework }),
  });
  if (input.signal !== undefined) request.signal = input.signal;
  const sources = [...(agent.sources ?? []), ...(input.sources ?? [])];
  const compile = (compileRequest: CompileRequest, limits: { maxInputTokens?: number } = {}) =>
    compileContext(compileRequest, {
      counter: input.counter,
      window: agent.window,
      ...(limits.maxInputTokens === undefined ? {} : { maxInputTokens: limits.maxInputTokens }),
      enableShareContext: rule.enableShareContext,
      policy: { alwaysInclude: rule.alwaysInclude },
      ...(sources.length === 0 ? {} : { sources }),
      ...(agent.summarizer === undefined ? {} : { summarizer: agent.summarizer }),
      onSummary: (summary) => sb.compression.persistCompression(summary.summary, summary.throughMessageId),
    });
  const compiled =
    input.compact === undefined
      ? await compile(request)
      : await input.compact({ agent, sb, request, compile });
  const { instructions, messages } = toAiSdk(compiled.messages);
  const result = await generateText({
    model: agent.model,
    instructions,
    messages: messages as Parameters<typeof generateText>[0]['messages'] & object,
    tools: agent.tools,
    stopWhen: isStepCount(agent.maxSteps),
    ...(input.signal === undefined ? {} : { abortSignal: input.signal }),
  });
  const produced: Message[] = result.response.messages.map((message, index) => ({
    id: `${agent.id}:${result.response.id}:${index}`,
    role: message.role as Message['role'],
    content: message.content as Message['content'],
  }));
  return { messages: toLangChain(produced), text: result.text, compiled };
}
