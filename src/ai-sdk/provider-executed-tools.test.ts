import { generateText, wrapLanguageModel } from 'ai';
import { expect, it } from 'vitest';
import { withTokenCache } from '../core/index.ts';
import { textModel } from '../runtime/processes/mock-model.test-support.ts';
import { getTokenCounter } from '../tokenizers/index.ts';
import { ctxloomMiddleware } from './ctxloom-middleware.ts';

// A tool the provider ran (a web search) comes back in the assistant message: its call and its
// result. The middleware compiles the conversation and sends the result as the SDK gave it.
it('sends an assistant message carrying a provider-executed tool result through the middleware', async () => {
  const model = textModel(() => 'ok');
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
  const prompt = model.calls[0]?.prompt ?? [];
  expect(JSON.stringify(prompt)).toContain('Raft is consensus.');
});
