import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { countToolDefinitions, type TokenCounter, type ToolDefinition } from '../core/index.ts';
import { type AnyModelMessage, fromModelMessages } from './from-model-messages.ts';

/** The function tools of a provider call, as ctxloom counts them. */
export function callToolDefinitions(params: Pick<LanguageModelV4CallOptions, 'tools'>): ToolDefinition[] {
  const tools: ToolDefinition[] = [];
  for (const tool of params.tools ?? []) {
    if (tool.type !== 'function') continue;
    tools.push({
      name: tool.name,
      ...(tool.description === undefined ? {} : { description: tool.description }),
      inputSchema: tool.inputSchema,
    });
  }
  return tools;
}

/**
 * The input tokens a provider call carries — its prompt and tool schemas — counted the way a
 * ctxloom report counts them: check, from a recording provider or middleware, that what a
 * model received equals the report's `totalTokens`.
 * @example
 * expect(countCallTokens(model.doStreamCalls[0], counter)).toBe(compiled.report.totalTokens);
 */
export function countCallTokens(
  params: Pick<LanguageModelV4CallOptions, 'prompt' | 'tools'>,
  counter: TokenCounter,
): number {
  const { messages } = fromModelMessages(params.prompt as unknown as AnyModelMessage[]);
  return counter.countMessages(messages) + countToolDefinitions(callToolDefinitions(params), counter);
}
