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

/**
 * Key of `additional_kwargs` where {@link toCheckpointMessage} keeps what a LangChain message
 * cannot say of a ctxloom message (exact parts, name, metadata such as `command`).
 */
export const CTXLOOM_KWARG = 'ctxloom';

/** What {@link toCheckpointMessage} keeps beside the LangChain fields, only when needed. */
interface CtxloomExtras {
  /** The exact parts, when the LangChain fields do not reproduce them. */
  content?: Message['content'];
  name?: string;
  metadata?: Record<string, unknown>;
}

/**
 * A ctxloom message as the Blackboard's `messages` channel stores it: the LangChain message
 * a runtime agent reads (user → `HumanMessage`, assistant → `AIMessage` with its tool calls,
 * tool → `ToolMessage`, system → `SystemMessage`; same id), plus — in
 * `additional_kwargs.ctxloom`, and only when needed — the exact parts, name and metadata,
 * so {@link fromCheckpointMessage} returns the message unchanged.
 */
export function toCheckpointMessage(message: Message): BaseMessage {
  const base = langChainOf(message, {});
  const extras: CtxloomExtras = {};
  if (!isDeepStrictEqual(derivedContent(base), message.content)) extras.content = message.content;
  if (message.name !== undefined) extras.name = message.name;
  if (message.metadata !== undefined) extras.metadata = message.metadata;
  return Object.keys(extras).length === 0 ? base : langChainOf(message, { [CTXLOOM_KWARG]: extras });
}

/**
 * A stored LangChain message as a ctxloom message — the one decoder of the Blackboard's
 * `messages`, for the session store and for runtime agents alike: exact for messages written
 * by {@link toCheckpointMessage}; messages a runtime agent appended (or any LangChain
 * message) are mapped as the compile pipeline sees them (text, tool calls, tool results).
 * `undefined` for other kinds.
 */
export function fromCheckpointMessage(message: BaseMessage): Message | undefined {
  const role = roleOf(message);
  if (role === undefined) return undefined;
  const extras = (message.additional_kwargs?.[CTXLOOM_KWARG] ?? {}) as CtxloomExtras;
  const out: Message = {
    id: message.id ?? '',
    role,
    content: extras.content === undefined ? derivedContent(message) : structuredClone(extras.content),
  };
  if (extras.name !== undefined) out.name = extras.name;
  if (extras.metadata !== undefined) out.metadata = structuredClone(extras.metadata);
  return out;
}

function langChainOf(message: Message, additional_kwargs: Record<string, unknown>): BaseMessage {
  const id = message.id;
  const text = messageText(message);
  switch (message.role) {
    case 'user':
      return new HumanMessage({ id, content: text, additional_kwargs });
    case 'system':
      return new SystemMessage({ id, content: text, additional_kwargs });
    case 'assistant': {
      const calls = (typeof message.content === 'string' ? [] : message.content).filter(
        (part) => part.type === 'tool-call',
      );
      return new AIMessage({
        id,
        content: text,
        additional_kwargs,
        tool_calls: calls.map((call) => ({
          id: call.toolCallId,
          name: call.toolName,
          args: isRecord(call.input) ? call.input : {},
          type: 'tool_call' as const,
        })),
      });
    }
    case 'tool': {
      const result = (typeof message.content === 'string' ? [] : message.content).find(
        (part) => part.type === 'tool-result',
      );
      const failed =
        result !== undefined &&
        (result.output.type === 'error-text' ||
          result.output.type === 'error-json' ||
          result.output.type === 'execution-denied');
      return new ToolMessage({
        id,
        content: result === undefined ? text : toolOutputText(result.output),
        tool_call_id: result?.toolCallId ?? '',
        name: result?.toolName ?? '',
        status: failed ? 'error' : 'success',
        additional_kwargs,
      });
    }
  }
}

function roleOf(message: BaseMessage): Message['role'] | undefined {
  if (HumanMessage.isInstance(message)) return 'user';
  if (SystemMessage.isInstance(message)) return 'system';
  if (AIMessage.isInstance(message)) return 'assistant';
  if (ToolMessage.isInstance(message)) return 'tool';
  return undefined;
}

/** The content the LangChain fields alone say (what a runtime agent's message maps to). */
function derivedContent(message: BaseMessage): Message['content'] {
  if (AIMessage.isInstance(message)) {
    const calls = message.tool_calls ?? [];
    if (calls.length === 0) return message.text;
    const parts: Part[] = message.text.length > 0 ? [{ type: 'text', text: message.text }] : [];
    for (const call of calls) {
      parts.push({ type: 'tool-call', toolCallId: call.id ?? '', toolName: call.name, input: call.args });
    }
    return parts;
  }
  if (ToolMessage.isInstance(message)) {
    return [
      {
        type: 'tool-result',
        toolCallId: message.tool_call_id,
        toolName: message.name ?? '',
        output: { type: message.status === 'error' ? 'error-text' : 'text', value: message.text },
      },
    ];
  }
  return message.text;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
