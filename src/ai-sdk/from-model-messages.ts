import { hashText } from '../core/fingerprint.ts';
import type { Message, Part, ToolResultContentPart, ToolResultOutput } from '../core/index.ts';
import { toolOutputText } from '../core/message.ts';

/** An AI SDK message: a `ModelMessage` or a `LanguageModelV4Prompt` entry (structurally). */
export interface AnyModelMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | readonly Record<string, unknown>[];
  providerOptions?: unknown;
}

/** Messages converted from the AI SDK, with the original of each id (to send unchanged ones as they came). */
export interface FromModelMessages {
  messages: Message[];
  originals: Map<string, AnyModelMessage>;
}

/**
 * Converts AI SDK messages (`ModelMessage[]` or a `LanguageModelV4Prompt`) into ctxloom
 * messages. AI SDK messages carry no ids, so each gets a stable one: `ai:<hash of role and
 * content>`, with `:<n>` for the n-th repeat of equal content — the same message gets the
 * same id on every call and every step, so token counts are reused and dedup works.
 * Text, reasoning, file/image, tool-call and tool-result parts are kept; a tool output of
 * type `content` becomes its text.
 */
export function fromModelMessages(messages: readonly AnyModelMessage[]): FromModelMessages {
  const seen = new Map<string, number>();
  const originals = new Map<string, AnyModelMessage>();
  const out = messages.map((message) => {
    const hash = hashText(`${message.role}\u0000${stableJson(message.content)}`);
    const count = (seen.get(hash) ?? 0) + 1;
    seen.set(hash, count);
    const id = count === 1 ? `ai:${hash}` : `ai:${hash}:${count}`;
    originals.set(id, message);
    return toMessage(message, id);
  });
  return { messages: out, originals };
}

function toMessage(message: AnyModelMessage, id: string): Message {
  if (typeof message.content === 'string') return { id, role: message.role, content: message.content };
  const parts: Part[] = [];
  for (const part of message.content) {
    const converted = toPart(part);
    if (converted !== undefined) parts.push(converted);
  }
  if (message.role === 'system') return { id, role: 'system', content: parts.map(textOf).join('') };
  return { id, role: message.role, content: parts };
}

function toPart(part: Record<string, unknown>): Part | undefined {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: String(part.text ?? '') };
    case 'reasoning':
      return { type: 'reasoning', text: String(part.text ?? '') };
    case 'tool-call':
      return {
        type: 'tool-call',
        toolCallId: String(part.toolCallId),
        toolName: String(part.toolName),
        input: part.input,
      };
    case 'tool-result':
      return {
        type: 'tool-result',
        toolCallId: String(part.toolCallId),
        toolName: String(part.toolName),
        output: toOutput(part.output),
      };
    case 'file':
    case 'image': {
      const data = part.type === 'image' ? part.image : part.data;
      const mediaType = String(
        part.mediaType ?? (part.type === 'image' ? 'image/*' : 'application/octet-stream'),
      );
      return {
        type: 'file',
        data: dataString(data),
        mediaType,
        ...(typeof part.filename === 'string' ? { filename: part.filename } : {}),
      };
    }
    default:
      return undefined;
  }
}

function toOutput(output: unknown): ToolResultOutput {
  const value = output as { type?: string; value?: unknown; reason?: string } | undefined;
  switch (value?.type) {
    case 'text':
    case 'error-text':
      return { type: value.type, value: String(value.value ?? '') };
    case 'json':
    case 'error-json':
      return { type: value.type, value: (value.value ?? null) as never };
    case 'execution-denied':
      return value.reason === undefined
        ? { type: 'execution-denied' }
        : { type: 'execution-denied', reason: value.reason };
    case 'content': {
      // As core renders a `content` output (its text parts, `[type]` for the others), sent as text.
      const parts = Array.isArray(value.value) ? (value.value as ToolResultContentPart[]) : [];
      return { type: 'text', value: toolOutputText({ type: 'content', value: parts }) };
    }
    default:
      return { type: 'json', value: (output ?? null) as never };
  }
}

function dataString(data: unknown): string {
  if (typeof data === 'string') return data;
  if (data instanceof URL) return data.href;
  if (data instanceof Uint8Array) return Buffer.from(data).toString('base64');
  if (typeof data === 'object' && data !== null && 'url' in data)
    return String((data as { url: unknown }).url);
  return String(data);
}

function textOf(part: Part): string {
  return part.type === 'text' ? part.text : '';
}

/** JSON with binary data reduced to its length, so hashing a file part stays cheap and stable. */
function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner instanceof Uint8Array
      ? `bytes:${inner.length}:${hashText(Buffer.from(inner).toString('latin1'))}`
      : inner,
  );
}
