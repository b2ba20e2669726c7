import type { LanguageModelV4Message, LanguageModelV4Prompt } from '@ai-sdk/provider';
import { cacheBreakpoints, type LayerRegistry, type Message, type Part } from '../core/index.ts';
import type { AnyModelMessage } from './from-model-messages.ts';

const EPHEMERAL = { anthropic: { cacheControl: { type: 'ephemeral' } } } as const;

/**
 * Turns compiled messages into the prompt a language model receives (`LanguageModelV4Prompt`).
 * A message that reached the compile unchanged is sent as it came (`originals`, by id), so
 * provider options and binary file data survive; a replaced one (a placeholder, a trimmed
 * text) and ctxloom's layer messages are converted. Prompt-cache breakpoints (Anthropic's
 * `cacheControl`, ignored by other providers) go where `cacheBreakpoints` puts them.
 */
export function toModelPrompt(
  messages: readonly Message[],
  options: {
    originals?: ReadonlyMap<string, AnyModelMessage>;
    cacheControl?: boolean;
    layers?: LayerRegistry;
  } = {},
): LanguageModelV4Prompt {
  const prompt = messages.map((message) => {
    const original = options.originals?.get(message.id);
    if (original !== undefined && sameContent(original, message))
      return { ...original } as LanguageModelV4Message;
    return convert(message);
  });
  if (options.cacheControl ?? true) {
    const breakpoints = cacheBreakpoints(messages, {
      ...(options.layers === undefined ? {} : { layers: options.layers }),
    });
    for (const index of breakpoints) {
      const entry = prompt[index];
      if (entry !== undefined) entry.providerOptions = { ...entry.providerOptions, ...EPHEMERAL };
    }
  }
  return prompt;
}

/** True when the compile sent `message` with the content it came with. */
function sameContent(original: AnyModelMessage, message: Message): boolean {
  if (message.metadata?.trimmed === true || message.metadata?.placeholders !== undefined) return false;
  return original.role === message.role;
}

function convert(message: Message): LanguageModelV4Message {
  const parts =
    typeof message.content === 'string' ? [{ type: 'text', text: message.content } as Part] : message.content;
  switch (message.role) {
    case 'system':
      return {
        role: 'system',
        content: parts.map((part) => (part.type === 'text' ? part.text : '')).join(''),
      };
    case 'user':
      return {
        role: 'user',
        content: parts.flatMap((part) => {
          if (part.type === 'text') return [{ type: 'text' as const, text: part.text }];
          if (part.type === 'file') {
            return [
              {
                type: 'file' as const,
                mediaType: part.mediaType,
                data: /^(https?:|data:)/u.test(part.data)
                  ? { type: 'url' as const, url: new URL(part.data) }
                  : { type: 'data' as const, data: part.data },
              },
            ] as never[];
          }
          return [];
        }),
      };
    case 'assistant':
      return {
        role: 'assistant',
        content: parts.flatMap((part): Extract<LanguageModelV4Message, { role: 'assistant' }>['content'] => {
          if (part.type === 'text' || part.type === 'reasoning')
            return [{ type: part.type, text: part.text }];
          if (part.type === 'tool-call')
            return [
              {
                type: 'tool-call' as const,
                toolCallId: part.toolCallId,
                toolName: part.toolName,
                input: part.input,
              },
            ];
          return [];
        }),
      };
    case 'tool':
      return {
        role: 'tool',
        content: parts.flatMap((part) =>
          part.type === 'tool-result'
            ? [
                {
                  type: 'tool-result' as const,
                  toolCallId: part.toolCallId,
                  toolName: part.toolName,
                  output: part.output as never,
                },
              ]
            : [],
        ),
      };
  }
}
