import { CtxloomError } from '../errors.ts';
import type { LayerRegistry } from '../layers.ts';
import {
  type FilePart,
  type JsonValue,
  type Message,
  PARTS_OF_ROLE,
  type ReasoningPart,
  type TextPart,
  type ToolCallPart,
  type ToolResultPart,
  toolOutputText,
} from '../message.ts';
import { cacheBreakpoints, MAX_CACHE_BREAKPOINTS } from './breakpoints.ts';
import { contextAsUserText, splitInstructions } from './stable.ts';

const EPHEMERAL = { type: 'ephemeral' } as const;

type ProviderOptions = Record<string, Record<string, JsonValue>>;

/** Structurally the AI SDK's `SystemModelMessage`. */
export interface AiSdkSystemMessage {
  role: 'system';
  content: string;
  providerOptions?: ProviderOptions;
}
/** Structurally the AI SDK's `ModelMessage` (minus system, which goes to `instructions`). */
export type AiSdkMessage =
  | { role: 'user'; content: string | (TextPart | FilePart)[]; providerOptions?: ProviderOptions }
  | {
      role: 'assistant';
      content: string | (TextPart | ReasoningPart | ToolCallPart)[];
      providerOptions?: ProviderOptions;
    }
  | { role: 'tool'; content: ToolResultPart[]; providerOptions?: ProviderOptions };

/** Options of {@link toAiSdk}. */
export interface ToAiSdkOptions {
  /**
   * Put Anthropic's `cacheControl` (ephemeral) on the last stable instruction, so the
   * system prompt and framework layer are cached. Other providers ignore it. Default true.
   */
  cacheControl?: boolean;
  /**
   * Mark history breakpoints too (`providerOptions.anthropic.cacheControl` on the last
   * history message before the query, the query when steps follow, and the last message;
   * see `cacheBreakpoints`). Default true; off when `cacheControl` is false.
   */
  cacheHistory?: boolean;
  layers?: LayerRegistry;
}

/**
 * Emits for AI SDK 7: `{ instructions, messages }`, ready for
 * `generateText({ model, ...toAiSdk(compiled.messages) })`. Leading system messages become
 * `instructions`; a context layer placed after the history becomes user text.
 */
export function toAiSdk(
  messages: readonly Message[],
  options: ToAiSdkOptions = {},
): { instructions: AiSdkSystemMessage[]; messages: AiSdkMessage[] } {
  const { instructions, rest, lastStable } = splitInstructions(messages, options.layers);
  const cache = options.cacheControl ?? true;
  const system = instructions.map((message, index): AiSdkSystemMessage => {
    const entry: AiSdkSystemMessage = { role: 'system', content: systemText(message) };
    if (cache && index === lastStable) entry.providerOptions = { anthropic: { cacheControl: EPHEMERAL } };
    return entry;
  });
  const out = rest.map(toModelMessage);
  if (cache && (options.cacheHistory ?? true)) {
    const breakpoints = cacheBreakpoints(messages, {
      ...(options.layers === undefined ? {} : { layers: options.layers }),
      max: MAX_CACHE_BREAKPOINTS - (lastStable >= 0 ? 1 : 0),
    });
    for (const index of breakpoints) {
      const entry = out[index - instructions.length];
      if (entry !== undefined) entry.providerOptions = { anthropic: { cacheControl: EPHEMERAL } };
    }
  }
  return { instructions: system, messages: out };
}

function systemText(message: Message): string {
  if (typeof message.content === 'string') return message.content;
  return message.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

function toModelMessage(message: Message): AiSdkMessage {
  switch (message.role) {
    case 'system':
      return { role: 'user', content: contextAsUserText(message) };
    case 'user':
      if (typeof message.content === 'string') return { role: 'user', content: message.content };
      return {
        role: 'user',
        content: message.content.map((part) => {
          if (PARTS_OF_ROLE.user.includes(part.type)) return part as TextPart | FilePart;
          throw misplaced(message, part.type);
        }),
      };
    case 'assistant':
      if (typeof message.content === 'string') return { role: 'assistant', content: message.content };
      return {
        role: 'assistant',
        content: message.content.map((part) => {
          if (PARTS_OF_ROLE.assistant.includes(part.type))
            return part as TextPart | ReasoningPart | ToolCallPart;
          throw misplaced(message, part.type);
        }),
      };
    case 'tool':
      if (typeof message.content === 'string') throw misplaced(message, 'text');
      return {
        role: 'tool',
        content: message.content.map((part) => {
          if (part.type !== 'tool-result') throw misplaced(message, part.type);
          // A `content` output goes as the text the report counted (its text parts, `[type]` for
          // the others), as the AI SDK middleware takes one: what is sent is what is counted.
          if (part.output.type !== 'content') return part;
          return { ...part, output: { type: 'text', value: toolOutputText(part.output) } };
        }),
      };
  }
}

/** Error for a part type a role cannot carry. */
export function misplaced(message: Message, partType: string): CtxloomError {
  return new CtxloomError({
    code: 'invalid-argument',
    message: `a ${message.role} message cannot carry a ${partType} part`,
    path: `messages.${message.id}.content`,
  });
}
