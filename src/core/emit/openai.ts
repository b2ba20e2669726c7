import type { Message, Part } from '../message.ts';
import { toolOutputText } from '../message.ts';
import { misplaced } from './ai-sdk.ts';

/** An OpenAI Chat Completions message. */
export type OpenAIChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | OpenAIUserContent[] }
  | {
      role: 'assistant';
      content: string | null;
      tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
    }
  | { role: 'tool'; tool_call_id: string; content: string };

/** A user content part of the Chat Completions API. */
export type OpenAIUserContent =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string } }
  | { type: 'file'; file: { file_data: string; filename: string } };

/**
 * Emits for OpenAI Chat Completions: `{ messages }`. Tool calls become `tool_calls`, each
 * tool result its own `tool` message; images become `image_url` parts (data URLs for
 * base64), other files `file` parts. System messages stay where the composer put them.
 */
export function toOpenAI(messages: readonly Message[]): { messages: OpenAIChatMessage[] } {
  const out: OpenAIChatMessage[] = [];
  for (const message of messages) {
    const parts = typeof message.content === 'string' ? undefined : message.content;
    switch (message.role) {
      case 'system':
        out.push({
          role: 'system',
          content: parts === undefined ? (message.content as string) : textOf(parts),
        });
        break;
      case 'user':
        if (parts === undefined) {
          out.push({ role: 'user', content: message.content as string });
          break;
        }
        out.push({
          role: 'user',
          content: parts.map((part): OpenAIUserContent => {
            if (part.type === 'text') return { type: 'text', text: part.text };
            if (part.type !== 'file') throw misplaced(message, part.type);
            const url = /^(https?:|data:)/u.test(part.data)
              ? part.data
              : `data:${part.mediaType};base64,${part.data}`;
            if (part.mediaType.startsWith('image/')) return { type: 'image_url', image_url: { url } };
            return { type: 'file', file: { file_data: url, filename: part.filename ?? 'file' } };
          }),
        });
        break;
      case 'assistant': {
        if (parts === undefined) {
          out.push({ role: 'assistant', content: message.content as string });
          break;
        }
        const text = textOf(parts);
        const calls = parts.flatMap((part) =>
          part.type === 'tool-call'
            ? [
                {
                  id: part.toolCallId,
                  type: 'function' as const,
                  function: { name: part.toolName, arguments: JSON.stringify(part.input ?? {}) },
                },
              ]
            : [],
        );
        out.push(
          calls.length > 0
            ? { role: 'assistant', content: text || null, tool_calls: calls }
            : { role: 'assistant', content: text },
        );
        break;
      }
      case 'tool':
        for (const part of parts ?? []) {
          if (part.type !== 'tool-result') throw misplaced(message, part.type);
          out.push({ role: 'tool', tool_call_id: part.toolCallId, content: toolOutputText(part.output) });
        }
        break;
    }
  }
  return { messages: out };
}

function textOf(parts: readonly Part[]): string {
  let text = '';
  for (const part of parts) if (part.type === 'text') text += part.text;
  return text;
}
