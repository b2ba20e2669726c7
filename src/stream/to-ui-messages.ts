import { type Message, type Part, turnErrorOf } from '../core/index.ts';
import type {
  MessageContextSummary,
  MessageCuration,
  NotebookMessageMetadata,
  NotebookUIMessage,
} from './notebook-ui-message.ts';

type UiPart = NotebookUIMessage['parts'][number];

/** Options of {@link toUiMessages}. */
export interface ToUiMessagesOptions {
  /** Curation state by stored message id (from the session's `memory.json`). */
  curation?: ReadonlyMap<string, MessageCuration>;
}

/**
 * Converts stored `messages.json` entries into AI SDK UI messages, the inverse of
 * `toStoredMessages`: an assistant message and the `tool` messages after it (up to the next
 * user message) become one UI message whose steps start with `step-start`, tool calls become
 * `tool-<name>` parts with their output or error; a failed turn's error record
 * (`metadata.turnError`) becomes the answer's `metadata.error`. System messages are left out. Pure.
 */
export function toUiMessages(
  messages: readonly Message[],
  options: ToUiMessagesOptions = {},
): NotebookUIMessage[] {
  const result: NotebookUIMessage[] = [];
  let current: NotebookUIMessage | undefined;
  for (const message of messages) {
    if (message.role === 'system') continue;
    if (message.role === 'user') {
      current = undefined;
      result.push({
        id: message.id,
        role: 'user',
        parts: toParts(message.content),
        metadata: metadataOf(message, options),
      });
      continue;
    }
    if (current === undefined || (message.role === 'assistant' && !sameTurn(current, message))) {
      current = {
        id: uiIdOf(message),
        role: 'assistant',
        parts: [],
        metadata: { ...metadataOf(message, options), storedIds: [] },
      };
      result.push(current);
    }
    current.metadata?.storedIds?.push(message.id);
    mergeCuration(current, options.curation?.get(message.id));
    if (message.metadata?.partial === true && current.metadata !== undefined) current.metadata.partial = true;
    const turnError = turnErrorOf(message);
    if (turnError !== undefined) {
      if (current.metadata !== undefined)
        current.metadata.error = { code: turnError.code, message: turnError.message };
    } else if (message.role === 'assistant') {
      current.parts.push({ type: 'step-start' }, ...toParts(message.content));
    } else {
      applyResults(current, message.content);
    }
  }
  return result;
}

function uiIdOf(message: Message): string {
  const id = message.metadata?.uiMessageId;
  return typeof id === 'string' ? id : message.id;
}

function sameTurn(current: NotebookUIMessage, message: Message): boolean {
  const id = message.metadata?.uiMessageId;
  return typeof id === 'string' && id === current.id;
}

function metadataOf(message: Message, options: ToUiMessagesOptions): NotebookMessageMetadata {
  const metadata: NotebookMessageMetadata = { storedIds: [message.id] };
  const createdAt = message.metadata?.createdAt;
  if (typeof createdAt === 'string') metadata.createdAt = createdAt;
  if (message.metadata?.partial === true) metadata.partial = true;
  const context = message.metadata?.context;
  if (isContextSummary(context)) metadata.context = context;
  const curation = options.curation?.get(message.id);
  if (curation !== undefined) metadata.memory = curation;
  return metadata;
}

function mergeCuration(target: NotebookUIMessage, curation: MessageCuration | undefined): void {
  if (curation !== undefined && target.metadata !== undefined) target.metadata.memory ??= curation;
}

function toParts(content: Message['content']): UiPart[] {
  if (typeof content === 'string')
    return content === '' ? [] : [{ type: 'text', text: content, state: 'done' }];
  const parts: UiPart[] = [];
  for (const part of content) {
    const converted = toPart(part);
    if (converted !== undefined) parts.push(converted);
  }
  return parts;
}

function toPart(part: Part): UiPart | undefined {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text, state: 'done' };
    case 'reasoning':
      return { type: 'reasoning', text: part.text, state: 'done' };
    case 'tool-call':
      return {
        type: 'dynamic-tool',
        toolName: part.toolName,
        toolCallId: part.toolCallId,
        state: 'input-available',
        input: part.input,
      };
    default:
      return undefined;
  }
}

function applyResults(target: NotebookUIMessage, content: Message['content']): void {
  if (typeof content === 'string') return;
  for (const part of content) {
    if (part.type !== 'tool-result') continue;
    const index = target.parts.findIndex(
      (candidate) => candidate.type === 'dynamic-tool' && candidate.toolCallId === part.toolCallId,
    );
    const call = target.parts[index];
    if (call?.type !== 'dynamic-tool') continue;
    const output = part.output;
    target.parts[index] =
      output.type === 'text' || output.type === 'json' || output.type === 'content'
        ? { ...base(call), state: 'output-available', input: call.input, output: output.value }
        : {
            ...base(call),
            state: 'output-error',
            input: call.input,
            errorText:
              output.type === 'execution-denied' ? (output.reason ?? 'denied') : String(output.value),
          };
  }
}

function base(call: { toolName: string; toolCallId: string }) {
  return { type: 'dynamic-tool' as const, toolName: call.toolName, toolCallId: call.toolCallId };
}

function isContextSummary(value: unknown): value is MessageContextSummary {
  const candidate = value as Partial<MessageContextSummary> | null | undefined;
  return typeof candidate?.totalTokens === 'number' && Array.isArray(candidate.references);
}
