import type { Message } from '../message.ts';
import type { ToolDefinition } from '../tool-definitions.ts';
import { type AnthropicRequest, toAnthropic } from './anthropic.ts';
import { type OpenAIChatMessage, toOpenAI } from './openai.ts';

/** What a request body carries besides the messages. */
export interface RequestBodyOptions {
  /** The provider's model id, e.g. `gpt-4o`, `claude-sonnet-4-5`. */
  model: string;
  /** The tools the call offers, as counted in its report. Default none. */
  tools?: readonly ToolDefinition[];
  /** The output limit, in tokens (the report's `outputReserve`). */
  maxOutputTokens: number;
}

/** An OpenAI Chat Completions request body. */
export interface OpenAIChatRequest {
  model: string;
  messages: OpenAIChatMessage[];
  tools?: { type: 'function'; function: { name: string; description?: string; parameters: unknown } }[];
  max_tokens: number;
}

/** An Anthropic Messages request body. */
export interface AnthropicMessagesRequest extends AnthropicRequest {
  model: string;
  max_tokens: number;
  tools?: { name: string; description?: string; input_schema: unknown }[];
}

/**
 * The whole OpenAI Chat Completions body of a compiled call — `model`, `messages`, `tools`
 * (function tools with their JSON schemas) and `max_tokens`, the field the AI SDK's OpenAI and
 * OpenAI-compatible providers send (servers such as vLLM and Ollama read it) — ready to POST
 * to `/v1/chat/completions`.
 */
export function toOpenAIRequest(
  messages: readonly Message[],
  options: RequestBodyOptions,
): OpenAIChatRequest {
  const tools = options.tools ?? [];
  return {
    model: options.model,
    ...toOpenAI(messages),
    ...(tools.length === 0
      ? {}
      : {
          tools: tools.map((tool) => ({
            type: 'function' as const,
            function: {
              name: tool.name,
              ...(tool.description === undefined ? {} : { description: tool.description }),
              parameters: tool.inputSchema,
            },
          })),
        }),
    max_tokens: options.maxOutputTokens,
  };
}

/**
 * The whole Anthropic Messages body of a compiled call — `model`, `max_tokens`, `system`
 * and `messages` with cache breakpoints ({@link toAnthropic}), `tools` with their input
 * schemas — ready to POST to `/v1/messages`.
 */
export function toAnthropicRequest(
  messages: readonly Message[],
  options: RequestBodyOptions,
): AnthropicMessagesRequest {
  const tools = options.tools ?? [];
  return {
    model: options.model,
    max_tokens: options.maxOutputTokens,
    ...toAnthropic(messages),
    ...(tools.length === 0
      ? {}
      : {
          tools: tools.map((tool) => ({
            name: tool.name,
            ...(tool.description === undefined ? {} : { description: tool.description }),
            input_schema: tool.inputSchema,
          })),
        }),
  };
}
