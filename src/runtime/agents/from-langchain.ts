import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from '@langchain/core/messages';
import type { Message, Part } from '../../core/message.ts';

/**
 * LangChain messages (the Blackboard's `messages`) as ctxloom core messages, for the
 * compile pipeline's `history`. Ids are kept; tool calls and results become AI SDK-shaped
 * parts.
 */
export function fromLangChain(messages: readonly BaseMessage[]): Message[] {
  const out: Message[] = [];
  for (const message of messages) {
    const id = message.id ?? '';
    if (HumanMessage.isInstance(message)) out.push({ id, role: 'user', content: message.text });
    else if (SystemMessage.isInstance(message)) out.push({ id, role: 'system', content: message.text });
    else if (AIMessage.isInstance(message)) {
      const parts: Part[] = [];
      if (message.text.length > 0) parts.push({ type: 'text', text: message.text });
      for (const call of message.tool_calls ?? []) {
        parts.push({ type: 'tool-call', toolCallId: call.id ?? '', toolName: call.name, input: call.args });
      }
      out.push({
        id,
        role: 'assistant',
        content: parts.length === 1 && parts[0]?.type === 'text' ? message.text : parts,
      });
    } else if (ToolMessage.isInstance(message)) {
      out.push({
        id,
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: message.tool_call_id,
            toolName: message.name ?? '',
            output: { type: message.status === 'error' ? 'error-text' : 'text', value: message.text },
          },
        ],
      });
    }
  }
  return out;
}
