import type { BaseMessage } from '@langchain/core/messages';
import { generateText, isStepCount } from 'ai';
import { compileContext } from '../../core/compile.ts';
import type { CompiledContext } from '../../core/compile-types.ts';
import { toAiSdk } from '../../core/emit/index.ts';
import type { Message } from '../../core/message.ts';
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
}

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
  const compiled = await compileContext(request, {
    counter: input.counter,
    window: agent.window,
    enableShareContext: rule.enableShareContext,
    policy: { alwaysInclude: rule.alwaysInclude },
    ...(agent.sources === undefined ? {} : { sources: agent.sources }),
    onSummary: (summary) => sb.compression.persistCompression(summary.summary),
  });
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
