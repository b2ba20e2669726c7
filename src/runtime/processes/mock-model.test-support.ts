import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { MockLanguageModelV4 } from 'ai/test';

/** A mock model answering each call with `reply(call, index)` as plain text. */
export function textModel(reply: (prompt: string, index: number) => string): MockLanguageModelV4 {
  let index = 0;
  return new MockLanguageModelV4({
    doGenerate: async (options) => ({
      content: [{ type: 'text', text: reply(promptText(options), index++) }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: {
        inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: 1, text: 1, reasoning: 0 },
      },
      warnings: [],
    }),
  });
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

/** Every prompt a mock model received, as text. */
export function prompts(model: MockLanguageModelV4): string[] {
  return model.doGenerateCalls.map(promptText);
}
