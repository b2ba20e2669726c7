import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { MockLanguageModelV4 } from 'ai/test';

/** What a scripted model sees of a call: the prompt text and whether JSON was requested. */
export interface ScriptedCall {
  /** All text of the prompt (system and messages), joined by newlines. */
  prompt: string;
  /** True when the caller asked for structured (JSON) output. */
  json: boolean;
}

/**
 * A deterministic AI SDK model (`MockLanguageModelV4` from `ai/test`) for the example and its tests: `answer` returns the
 * text for each call (a JSON string for structured calls). Not a language model — it replays
 * what the script decides, so the example runs without keys; set `CTXLOOM_MODEL` for a real one.
 */
export function createScriptedModel(
  answer: (call: ScriptedCall) => string,
): MockLanguageModelV4 & { calls: ScriptedCall[] } {
  const calls: ScriptedCall[] = [];
  const respond = (options: LanguageModelV4CallOptions) => {
    const call = { prompt: promptText(options), json: options.responseFormat?.type === 'json' };
    calls.push(call);
    return answer(call);
  };
  const usage = {
    inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: undefined, text: undefined, reasoning: undefined },
  };
  const model = new MockLanguageModelV4({
    provider: 'etl-example',
    modelId: 'scripted',
    doGenerate: async (options) => ({
      content: [{ type: 'text', text: respond(options) }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage,
      warnings: [],
    }),
    doStream: async (options) => {
      const text = respond(options);
      return {
        stream: new ReadableStream({
          start(controller) {
            controller.enqueue({ type: 'stream-start', warnings: [] });
            controller.enqueue({ type: 'text-start', id: 't' });
            controller.enqueue({ type: 'text-delta', id: 't', delta: text });
            controller.enqueue({ type: 'text-end', id: 't' });
            controller.enqueue({ type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage });
            controller.close();
          },
        }),
      };
    },
  });
  return Object.assign(model, { calls });
}

function promptText(options: LanguageModelV4CallOptions): string {
  return options.prompt
    .map((message) =>
      typeof message.content === 'string'
        ? message.content
        : message.content
            .map((part) => ('text' in part && typeof part.text === 'string' ? part.text : ''))
            .join(''),
    )
    .join('\n');
}
