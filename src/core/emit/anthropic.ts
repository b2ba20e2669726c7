import type { LayerRegistry } from '../layers.ts';
import { isErrorResult, type Message, type Part, toolOutputText } from '../message.ts';
import { misplaced } from './ai-sdk.ts';
import { cacheBreakpoints, MAX_CACHE_BREAKPOINTS } from './breakpoints.ts';
import { contextAsUserText, splitInstructions } from './stable.ts';

type CacheControl = { type: 'ephemeral' };

/** An Anthropic Messages API content block. */
export type AnthropicBlock =
  | { type: 'text'; text: string; cache_control?: CacheControl }
  | { type: 'image'; source: AnthropicSource; cache_control?: CacheControl }
  | { type: 'document'; source: AnthropicSource; cache_control?: CacheControl }
  | { type: 'tool_use'; id: string; name: string; input: unknown; cache_control?: CacheControl }
  | {
      type: 'tool_result';
      tool_use_id: string;
      content: string;
      is_error?: boolean;
      cache_control?: CacheControl;
    };

type AnthropicSource = { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string };

/** An Anthropic Messages API request body (the parts ctxloom fills). */
export interface AnthropicRequest {
  system: { type: 'text'; text: string; cache_control?: CacheControl }[];
  messages: { role: 'user' | 'assistant'; content: AnthropicBlock[] }[];
}

/** Options of {@link toAnthropic}. */
export interface ToAnthropicOptions {
  /** `cache_control` on the last stable system block. Default true. */
  cacheSystem?: boolean;
  /**
   * `cache_control` on the history too (conversation caching): on its last message before
   * the query, on the query when tool steps follow, and on the last message (see
   * `cacheBreakpoints`; four in all with the system one). Default true.
   */
  cacheHistory?: boolean;
  layers?: LayerRegistry;
}

/**
 * Emits for Anthropic Messages: system blocks (with `cache_control` after the last stable
 * layer) and alternating user/assistant messages. Tool results travel in user messages as
 * `tool_result` blocks (`is_error` kept); consecutive same-role messages are merged;
 * reasoning parts are left out (Anthropic needs its own signed thinking blocks).
 */
export function toAnthropic(
  messages: readonly Message[],
  options: ToAnthropicOptions = {},
): AnthropicRequest {
  const { instructions, rest, lastStable } = splitInstructions(messages, options.layers);
  const system = instructions.map((message, index) => {
    const block: AnthropicRequest['system'][number] = { type: 'text', text: textOf(message) };
    if ((options.cacheSystem ?? true) && index === lastStable) block.cache_control = { type: 'ephemeral' };
    return block;
  });
  const marked = new Set(
    options.cacheHistory === false
      ? []
      : cacheBreakpoints(messages, {
          ...(options.layers === undefined ? {} : { layers: options.layers }),
          max: MAX_CACHE_BREAKPOINTS - (lastStable >= 0 && options.cacheSystem !== false ? 1 : 0),
        })
          .filter((index) => index >= instructions.length)
          .map((index) => index - instructions.length),
  );
  const out: AnthropicRequest['messages'] = [];
  for (const [position, message] of rest.entries()) {
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const content =
      message.role === 'system'
        ? [{ type: 'text' as const, text: contextAsUserText(message) }]
        : blocksOf(message);
    if (content.length === 0) continue;
    const previous = out.at(-1);
    if (previous !== undefined && previous.role === role) previous.content.push(...content);
    else out.push({ role, content });
    const last = content.at(-1);
    if (marked.has(position) && last !== undefined) last.cache_control = { type: 'ephemeral' };
  }
  return { system, messages: out };
}

function textOf(message: Message): string {
  return typeof message.content === 'string'
    ? message.content
    : message.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

function blocksOf(message: Message): AnthropicBlock[] {
  if (typeof message.content === 'string')
    return message.content.length > 0 ? [{ type: 'text', text: message.content }] : [];
  return message.content.flatMap((part): AnthropicBlock[] => convert(message, part));
}

function convert(message: Message, part: Part): AnthropicBlock[] {
  switch (part.type) {
    case 'text':
      return part.text.length > 0 ? [{ type: 'text', text: part.text }] : [];
    case 'reasoning':
      return [];
    case 'tool-call':
      if (message.role !== 'assistant') throw misplaced(message, part.type);
      return [{ type: 'tool_use', id: part.toolCallId, name: part.toolName, input: part.input ?? {} }];
    case 'tool-result': {
      const block: AnthropicBlock = {
        type: 'tool_result',
        tool_use_id: part.toolCallId,
        content: toolOutputText(part.output),
      };
      if (isErrorResult(part)) block.is_error = true;
      return [block];
    }
    case 'file': {
      const source: AnthropicSource = /^https?:/u.test(part.data)
        ? { type: 'url', url: part.data }
        : { type: 'base64', media_type: part.mediaType, data: part.data };
      return [part.mediaType.startsWith('image/') ? { type: 'image', source } : { type: 'document', source }];
    }
  }
}
