import { MockLanguageModelV4 } from 'ai/test';

/**
 * Test support: an AI SDK v4 mock model answering each call with the next of `outputs`
 * (objects are JSON-encoded, strings sent as is; the last one repeats).
 */
export function mockJsonModel(...outputs: unknown[]): MockLanguageModelV4 {
  let call = 0;
  return new MockLanguageModelV4({
    doGenerate: async () => {
      const output = outputs[Math.min(call++, outputs.length - 1)];
      const text = typeof output === 'string' ? output : JSON.stringify(output);
      return {
        content: [{ type: 'text', text }],
        finishReason: { unified: 'stop', raw: undefined },
        usage: {
          inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
          outputTokens: { total: 10, text: 10, reasoning: undefined },
        },
        warnings: [],
      };
    },
  });
}

/** The prompt text a mock model received on its `index`-th call (all message text joined). */
export function promptOf(model: MockLanguageModelV4, index = 0): string {
  return JSON.stringify(model.doGenerateCalls[index]?.prompt ?? []);
}
