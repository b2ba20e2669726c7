import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import type { Message } from '../core/index.ts';
import { createCharCounter } from '../testing/index.ts';
import { createModelSummarizer } from './model-summarizer.ts';

const counter = createCharCounter();
const model = () =>
  new MockLanguageModelV4({
    doGenerate: async () => ({
      content: [{ type: 'text', text: '- summary' }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: {
        inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: 1, text: 1, reasoning: 0 },
      },
      warnings: [],
    }),
  });
const message = (id: string, size: number): Message => ({ id, role: 'user', content: 'x'.repeat(size) });

describe('createModelSummarizer', () => {
  it('covers nothing and calls no model when the oldest turn alone does not fit the window', async () => {
    const mock = model();
    const summarizer = createModelSummarizer({ model: mock, counter, window: 2000 });
    const result = await summarizer.summarize({
      previousSummary: 'before',
      messages: [message('huge', 50_000), message('small', 10)],
      maxTokens: 200,
    });
    expect(result).toEqual({ text: 'before', coveredCount: 0 });
    expect(mock.doGenerateCalls).toHaveLength(0);
  });

  it('covers nothing for no messages, and refuses a previous summary too big for the window', async () => {
    const mock = model();
    const summarizer = createModelSummarizer({ model: mock, counter, window: 2000 });
    expect(await summarizer.summarize({ messages: [], maxTokens: 200 })).toEqual({
      text: '',
      coveredCount: 0,
    });
    await expect(
      summarizer.summarize({
        previousSummary: 'y'.repeat(20_000),
        messages: [message('m', 10)],
        maxTokens: 200,
      }),
    ).rejects.toMatchObject({ code: 'over-budget' });
    expect(mock.doGenerateCalls).toHaveLength(0);
  });
});
