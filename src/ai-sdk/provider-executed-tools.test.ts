import { generateText, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { expect, it } from 'vitest';
import { withTokenCache } from '../core/index.ts';
import { getTokenCounter } from '../tokenizers/index.ts';
import { ctxloomMiddleware } from './ctxloom-middleware.ts';

// A tool the provider ran (a web search) comes back in the assistant message: its call and its
// result. The middleware compiles the conversation and sends the result as the SDK gave it.
it('sends an assistant message carrying a provider-executed tool result through the middleware', async () => {
  const model = new MockLanguageModelV4({
    doGenerate: async () =>
      ({
        content: [{ type: 'text', text: 'ok' }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: {
          inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 0, text: 0, reasoning: 0 },
        },
        warnings: [],
      }) as never,
  });
  const wrapped = wrapLanguageModel({
    model,
    middleware: ctxloomMiddleware({ counter: withTokenCache(getTokenCounter('gpt-4o')), window: 8000 }),
  });
  const result = await generateText({
    model: wrapped,
    messages: [
      { role: 'user', content: 'Search raft' },
      {
        role: 'assistant',
        content: [
          {
            type: 'tool-call',
            toolCallId: 'ws',
            toolName: 'web_search',
            input: { q: 'raft' },
            providerExecuted: true,
          },
          {
            type: 'tool-result',
            toolCallId: 'ws',
            toolName: 'web_search',
            output: { type: 'text', value: 'Raft is consensus.' },
          },
          { type: 'text', text: 'Raft elects a leader.' },
        ],
      },
      { role: 'user', content: 'More?' },
    ],
  });
  expect(result.text).toBe('ok');
  const prompt = model.doGenerateCalls[0]?.prompt ?? [];
  expect(JSON.stringify(prompt)).toContain('Raft is consensus.');
});
