import { isDeepStrictEqual } from 'node:util';
import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from '@langchain/core/messages';
import { type Message, messageText, type Part } from '../core/index.ts';
import { toolOutputText } from '../core/message.ts';
import { CTXLOOM_KWARG, type CtxloomExtras, derivedContent } from './from-langchain.ts';

/**
 * ctxloom messages as LangChain `BaseMessage[]` (`@langchain/core` is an optional peer
 * dependency) — the one encoder, for the LangChain emit target, an agent's own output and the
 * Blackboard's `messages` alike. What a LangChain reader needs is in the LangChain fields:
 * system → `SystemMessage`, user → `HumanMessage` (pictures as `image_url` parts), assistant →
 * `AIMessage` with its `tool_calls`, and **each tool result its own `ToolMessage`** (status
 * `error` for a failed result), the first with the message's id, the next ones
 * `<id>:<toolCallId>`; a message's `name` is the LangChain `name` (a tool message's is its
 * tool's). What the fields cannot say — exact parts, a tool message's name, metadata — is kept
 * in `additional_kwargs.ctxloom`, only when needed, so `fromLangChain` returns every message
 * exactly. Ids are kept, so LangGraph's messages reducer recognises them.
 * @example
 * const messages = toLangChain(compiled.messages);
 * const reply = await chatModel.invoke(messages);
 */
export function toLangChain(messages: readonly Message[]): BaseMessage[] {
  return messages.flatMap(encode);
}

function encode(message: Message): BaseMessage[] {
  const plain = langChainOf(message, {});
  const extras: CtxloomExtras = {};
  // One LangChain message says its content, or the first of several says it for them all.
  const first = plain[0];
  if (plain.length > 1 || first === undefined || !isDeepStrictEqual(derivedContent(first), message.content)) {
    extras.content = message.content;
  }
  if (message.name !== undefined && message.role === 'tool') extras.name = message.name;
  if (message.metadata !== undefined) extras.metadata = message.metadata;
  return Object.keys(extras).length === 0 ? plain : langChainOf(message, extras);
}

function langChainOf(message: Message, extras: CtxloomExtras): BaseMessage[] {
  const { id } = message;
  const kwargs = Object.keys(extras).length === 0 ? {} : { [CTXLOOM_KWARG]: extras };
  const named = message.name === undefined ? {} : { name: message.name };
  const parts: readonly Part[] =
    typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
  switch (message.role) {
    case 'user':
      return [new HumanMessage({ id, ...named, content: userContent(parts), additional_kwargs: kwargs })];
    case 'system':
      return [new SystemMessage({ id, ...named, content: messageText(message), additional_kwargs: kwargs })];
    case 'assistant':
      return [
        new AIMessage({
          id,
          ...named,
          content: messageText(message),
          additional_kwargs: kwargs,
          tool_calls: parts.flatMap((part) =>
            part.type === 'tool-call'
              ? [
                  {
                    id: part.toolCallId,
                    name: part.toolName,
                    args: isRecord(part.input) ? part.input : {},
                    type: 'tool_call' as const,
                  },
                ]
              : [],
          ),
        }),
      ];
    case 'tool': {
      const results = parts.filter((part) => part.type === 'tool-result');
      if (results.length === 0) {
        return [
          new ToolMessage({ id, content: messageText(message), tool_call_id: '', additional_kwargs: kwargs }),
        ];
      }
      return results.map(
        (result, index) =>
          new ToolMessage({
            id: index === 0 ? id : `${id}:${result.toolCallId}`,
            content: toolOutputText(result.output),
            tool_call_id: result.toolCallId,
            name: result.toolName,
            status: failed(result.output.type) ? 'error' : 'success',
            additional_kwargs: index === 0 ? kwargs : { [CTXLOOM_KWARG]: { partOf: id } },
          }),
      );
    }
  }
}

function failed(type: string): boolean {
  return type === 'error-text' || type === 'error-json' || type === 'execution-denied';
}

type UserContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

function userContent(parts: readonly Part[]): string | UserContentPart[] {
  if (parts.every((part) => part.type === 'text'))
    return parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
  return parts.flatMap((part): UserContentPart[] => {
    if (part.type === 'text') return [{ type: 'text' as const, text: part.text }];
    if (part.type === 'file' && part.mediaType.startsWith('image/')) {
      const url = /^(https?:|data:)/u.test(part.data)
        ? part.data
        : `data:${part.mediaType};base64,${part.data}`;
      return [{ type: 'image_url' as const, image_url: { url } }];
    }
    return [];
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
