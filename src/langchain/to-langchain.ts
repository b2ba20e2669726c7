import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from '@langchain/core/messages';
import type { Message, Part } from '../core/index.ts';
import { toolOutputText } from '../core/message.ts';

/**
 * Emits LangChain `BaseMessage[]` (`@langchain/core` is an optional peer dependency): system
 * layers become `SystemMessage`s, tool calls `AIMessage.tool_calls`, each tool result a
 * `ToolMessage` (status `error` for failed results). Message ids are kept, so LangGraph's
 * messages reducer recognises them.
 */
export function toLangChain(messages: readonly Message[]): BaseMessage[] {
  const out: BaseMessage[] = [];
  for (const message of messages) {
    const parts: Part[] =
      typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    const text = parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
    const base = { id: message.id, ...(message.name === undefined ? {} : { name: message.name }) };
    switch (message.role) {
      case 'system':
        out.push(new SystemMessage({ ...base, content: text }));
        break;
      case 'user':
        out.push(new HumanMessage({ ...base, content: userContent(parts) }));
        break;
      case 'assistant':
        out.push(
          new AIMessage({
            ...base,
            content: text,
            tool_calls: parts.flatMap((part) =>
              part.type === 'tool-call'
                ? [
                    {
                      id: part.toolCallId,
                      name: part.toolName,
                      args: (part.input ?? {}) as Record<string, unknown>,
                      type: 'tool_call' as const,
                    },
                  ]
                : [],
            ),
          }),
        );
        break;
      case 'tool':
        for (const part of parts) {
          if (part.type !== 'tool-result') continue;
          const failed =
            part.output.type === 'error-text' ||
            part.output.type === 'error-json' ||
            part.output.type === 'execution-denied';
          out.push(
            new ToolMessage({
              id: `${message.id}:${part.toolCallId}`,
              content: toolOutputText(part.output),
              tool_call_id: part.toolCallId,
              name: part.toolName,
              status: failed ? 'error' : 'success',
            }),
          );
        }
        break;
    }
  }
  return out;
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
