import type { UIMessage } from 'ai';
import type { Message, Part, ToolResultPart } from '../core/index.ts';

/** Options of {@link toStoredMessages}. */
export interface ToStoredMessagesOptions {
  /** ISO-8601 time written to every message's `metadata.createdAt`. */
  createdAt: string;
  /** Marks the messages as a partial answer (the stream was interrupted). Default false. */
  partial?: boolean;
  /** Extra metadata of the first stored message (e.g. the compile summary `context`). */
  metadata?: Record<string, unknown>;
}

/** Result for a tool call that never finished (the stream stopped before its output). */
export const INTERRUPTED_TOOL_OUTPUT = 'not completed: the stream ended before the tool returned';

interface ToolLikePart {
  type: string;
  toolCallId: string;
  toolName?: string;
  state: string;
  input?: unknown;
  output?: unknown;
  errorText?: string;
}

/**
 * Converts an assistant `UIMessage` (as the AI SDK's UI-stream reader accumulates it) into
 * `messages.json` entries: per step one `assistant` message (text + tool calls) followed by
 * one `tool` message with the results. Data parts (the context report) and empty steps are
 * left out. Ids are the UI message id, then `<id>.1`, `<id>.2`…; every entry carries
 * `metadata.uiMessageId` so {@link toUiMessages} can regroup them. Pure.
 */
export function toStoredMessages(message: UIMessage, options: ToStoredMessagesOptions): Message[] {
  const stored: Message[] = [];
  const metadata: Record<string, unknown> = { createdAt: options.createdAt, uiMessageId: message.id };
  if (options.partial === true) metadata.partial = true;
  let content: Part[] = [];
  let results: ToolResultPart[] = [];
  const flush = (): void => {
    if (content.length > 0) {
      const first = stored.length === 0 ? options.metadata : undefined;
      stored.push({
        id: nextId(message.id, stored.length),
        role: message.role,
        content,
        metadata: first === undefined ? metadata : { ...metadata, ...first },
      });
    }
    if (results.length > 0) {
      stored.push({ id: nextId(message.id, stored.length), role: 'tool', content: results, metadata });
    }
    content = [];
    results = [];
  };
  for (const part of message.parts) {
    if (part.type === 'step-start') {
      flush();
    } else if (part.type === 'text') {
      const last = content.at(-1);
      if (last?.type === 'text') last.text += part.text;
      else if (part.text !== '') content.push({ type: 'text', text: part.text });
    } else if (part.type === 'reasoning') {
      if (part.text !== '') content.push({ type: 'reasoning', text: part.text });
    } else if (isToolPart(part)) {
      const toolName = toolNameOf(part);
      content.push({ type: 'tool-call', toolCallId: part.toolCallId, toolName, input: part.input ?? {} });
      results.push({ type: 'tool-result', toolCallId: part.toolCallId, toolName, output: outputOf(part) });
    }
  }
  flush();
  return stored;
}

function nextId(base: string, index: number): string {
  return index === 0 ? base : `${base}.${index}`;
}

function isToolPart(part: { type: string }): part is ToolLikePart {
  return (part.type.startsWith('tool-') || part.type === 'dynamic-tool') && 'toolCallId' in part;
}

function toolNameOf(part: ToolLikePart): string {
  return part.type === 'dynamic-tool' ? (part.toolName ?? 'tool') : part.type.slice('tool-'.length);
}

function outputOf(part: ToolLikePart): ToolResultPart['output'] {
  if (part.state === 'output-available') {
    if (typeof part.output === 'string') return { type: 'text', value: part.output };
    return { type: 'json', value: JSON.parse(JSON.stringify(part.output ?? null)) };
  }
  if (part.state === 'output-error') return { type: 'error-text', value: part.errorText ?? 'tool failed' };
  if (part.state === 'output-denied') return { type: 'execution-denied' };
  return { type: 'error-text', value: INTERRUPTED_TOOL_OUTPUT };
}
