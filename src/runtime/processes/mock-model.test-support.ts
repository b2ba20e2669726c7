import type {
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4StreamPart,
} from '@ai-sdk/provider';
import { MockLanguageModelV4 } from 'ai/test';

const USAGE = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/** A recording mock model: every call it received (generated or streamed), in call order. */
export type ScriptedModel = MockLanguageModelV4 & { calls: LanguageModelV4CallOptions[] };

/**
 * A mock model answering each call with `respond(options, index)`. A streamed call sends each
 * text word by word (one `text-delta` per word, its space included), as a provider streams
 * tokens; a generated call returns it whole. `calls` records both kinds in order.
 */
export function scriptedModel(
  respond: (options: LanguageModelV4CallOptions, index: number) => LanguageModelV4Content[],
): ScriptedModel {
  let index = 0;
  const calls: LanguageModelV4CallOptions[] = [];
  const answer = (options: LanguageModelV4CallOptions) => {
    calls.push(options);
    const content = respond(options, index++);
    const calling = content.some((part) => part.type === 'tool-call');
    const finishReason = calling
      ? { unified: 'tool-calls' as const, raw: 'tool_calls' }
      : { unified: 'stop' as const, raw: 'stop' };
    return { content, finishReason };
  };
  const model = new MockLanguageModelV4({
    doGenerate: async (options) => ({ ...answer(options), usage: USAGE, warnings: [] }),
    doStream: async (options) => {
      const { content, finishReason } = answer(options);
      const parts: LanguageModelV4StreamPart[] = [{ type: 'stream-start', warnings: [] }];
      for (const [at, part] of content.entries()) {
        if (part.type === 'text') {
          const id = `text-${at}`;
          parts.push({ type: 'text-start', id });
          for (const word of part.text.match(/\S+\s*|\s+/gu) ?? []) {
            parts.push({ type: 'text-delta', id, delta: word });
          }
          parts.push({ type: 'text-end', id });
        } else if (part.type === 'tool-call') {
          parts.push(part);
        }
      }
      parts.push({ type: 'finish', finishReason, usage: USAGE });
      return {
        stream: new ReadableStream<LanguageModelV4StreamPart>({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      };
    },
  });
  return Object.assign(model, { calls });
}

/** A mock model answering each call with `reply(prompt, index)` as plain text (streamed word by word). */
export function textModel(reply: (prompt: string, index: number) => string): ScriptedModel {
  return scriptedModel((options, index) => [{ type: 'text', text: reply(promptText(options), index) }]);
}

/** The prompt of one call as `role: text` lines, for assertions on what the model saw. */
export function promptText(options: LanguageModelV4CallOptions): string {
  return options.prompt
    .map((message) => {
      const content =
        typeof message.content === 'string'
          ? message.content
          : message.content.map((part) => ('text' in part ? part.text : `[${part.type}]`)).join('');
      return `${message.role}: ${content}`;
    })
    .join('\n');
}

/** Every prompt a mock model received, as text, in call order. */
export function prompts(model: ScriptedModel): string[] {
  return model.calls.map(promptText);
}
