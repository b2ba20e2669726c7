/**
 * Messages and their parts. The part shapes are structurally compatible with the AI SDK's
 * `ModelMessage` content parts (text, tool-call, tool-result, file, reasoning), so a ctxloom
 * message can be handed to the AI SDK emitter without conversion of its parts.
 */

/** A JSON value, as tool inputs and outputs carry. */
export type JsonValue = null | string | number | boolean | JsonValue[] | { [key: string]: JsonValue };

export interface TextPart {
  type: 'text';
  text: string;
}

export interface ReasoningPart {
  type: 'reasoning';
  text: string;
}

export interface ToolCallPart {
  type: 'tool-call';
  toolCallId: string;
  toolName: string;
  input: unknown;
}

/** File data tagged by kind, as the AI SDK's `FileData` in the forms JSON can hold. */
export type TaggedFileData =
  | { type: 'data'; data: string }
  | { type: 'reference'; reference: Record<string, string> }
  | { type: 'text'; text: string };

/**
 * One part of a `content` tool output, as the AI SDK's: text, a file or image (by tagged
 * data, base64 data, URL, provider file id or provider reference), or a provider's custom
 * part. ctxloom counts and shows a non-text part as `[type]`.
 */
export type ToolResultContentPart =
  | { type: 'text'; text: string }
  | { type: 'file'; data: TaggedFileData; mediaType: string; filename?: string }
  | { type: 'file-data'; data: string; mediaType: string; filename?: string }
  | { type: 'file-url'; url: string; mediaType?: string }
  | { type: 'file-id'; fileId: string | Record<string, string> }
  | { type: 'file-reference'; providerReference: Record<string, string> }
  | { type: 'image-data'; data: string; mediaType: string }
  | { type: 'image-url'; url: string }
  | { type: 'image-file-id'; fileId: string | Record<string, string> }
  | { type: 'image-file-reference'; providerReference: Record<string, string> }
  | { type: 'custom' };

/** Output of a tool, as the AI SDK's `ToolResultOutput`. `error-*` outputs are failures. */
export type ToolResultOutput =
  | { type: 'text'; value: string }
  | { type: 'json'; value: JsonValue }
  | { type: 'error-text'; value: string }
  | { type: 'error-json'; value: JsonValue }
  | { type: 'execution-denied'; reason?: string }
  | { type: 'content'; value: ToolResultContentPart[] };

export interface ToolResultPart {
  type: 'tool-result';
  toolCallId: string;
  toolName: string;
  output: ToolResultOutput;
}

/** A file: `data` is base64 or a URL string; `mediaType` is an IANA media type. */
export interface FilePart {
  type: 'file';
  data: string;
  mediaType: string;
  filename?: string;
}

export type Part = TextPart | ReasoningPart | ToolCallPart | ToolResultPart | FilePart;

export type MessageRole = 'system' | 'user' | 'assistant' | 'tool';

/**
 * One message of a model call or of the stored history. `id` is stable across resumes and
 * belongs to the object: a compile takes it as it was when the message was first measured, so
 * give a message another id by replacing the object. `content`, `role`, `name` and `metadata`
 * may be changed in place between compiles (each compile checks them) — except in a frozen
 * history array, whose preparation and tagged copies a compile reuses as they were (decision
 * 031 and its amendment): replace the message in a new array instead.
 */
export interface Message {
  id: string;
  role: MessageRole;
  content: string | Part[];
  name?: string;
  metadata?: Record<string, unknown>;
}

/**
 * The part types each role may carry — what every compile's emitters send (the AI SDK's
 * messages refuse the others). A system message is rendered as its text, so not limited.
 */
export const PARTS_OF_ROLE: Readonly<Record<'user' | 'assistant' | 'tool', readonly Part['type'][]>> = {
  user: ['text', 'file'],
  assistant: ['text', 'reasoning', 'tool-call'],
  tool: ['tool-result'],
};

/** True when the part is a tool result whose output is an error or a denial. */
export function isErrorResult(part: Part): part is ToolResultPart {
  return (
    part.type === 'tool-result' &&
    (part.output.type === 'error-text' ||
      part.output.type === 'error-json' ||
      part.output.type === 'execution-denied')
  );
}

/** The parts of a message, with a string content seen as one text part. */
export function messageParts(message: Message): Part[] {
  return typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
}

/** The concatenated text parts of a message (tool parts and files excluded). */
export function messageText(message: Message): string {
  if (typeof message.content === 'string') return message.content;
  let text = '';
  for (const part of message.content) {
    if (part.type === 'text') text += part.text;
  }
  return text;
}

/**
 * The text a tokenizer sees for one part: text as is, tool calls as `name(json)`, tool
 * results as their value, files as their name and type (the bytes are priced separately).
 */
export function partText(part: Part): string {
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return part.text;
    case 'tool-call':
      return `${part.toolName}(${toolInputText(part.input)})`;
    case 'tool-result':
      return toolOutputText(part.output);
    case 'file':
      return `${part.filename ?? 'file'} ${part.mediaType}`;
  }
}

/** The text of a tool call's input (serialised compactly; a string as it is). */
export function toolInputText(input: unknown): string {
  return stringifyJson(input);
}

/**
 * The text of a tool output (JSON values are serialised compactly; a `content` output is its
 * parts one a line, a text part as its text and any other as `[type]`).
 */
export function toolOutputText(output: ToolResultOutput): string {
  switch (output.type) {
    case 'text':
    case 'error-text':
      return output.value;
    case 'json':
    case 'error-json':
      return stringifyJson(output.value);
    case 'execution-denied':
      return output.reason ?? 'execution denied';
    case 'content':
      return output.value.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join('\n');
  }
}

function stringifyJson(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return String(value);
  }
}
