import { describe, expect, it } from 'vitest';
import type { Message, TokenCounter } from '../core/index.ts';
import { createCharCounter } from '../testing/index.ts';
import { createRecallSource, createSessionIndexes } from './session-recall.ts';

/** A char counter that counts how many texts it was asked to count. */
function countingCounter(): TokenCounter & { texts: number } {
  const base = createCharCounter();
  const counter = {
    ...base,
    texts: 0,
    countText(text: string) {
      counter.texts++;
      return base.countText(text);
    },
  };
  return counter;
}

describe('recall', () => {
  it('formats and counts a stored message once, however many calls recall it (decision 061)', async () => {
    const messages = Array.from(
      { length: 40 },
      (_, index) =>
        Object.freeze({
          id: `m${index}`,
          role: index % 2 === 0 ? 'user' : 'assistant',
          content: index % 5 === 0 ? `the lighthouse keeper painted number ${index}` : `small talk ${index}`,
        }) as Message,
    );
    const index = createSessionIndexes().sync('s', messages);
    const byId = new Map(
      messages.map((message, position) => [message.id, { message, position: position + 1 }]),
    );
    const source = createRecallSource({ index, messages: byId, eligible: () => true, maxTokens: 10_000 });
    const counter = countingCounter();
    const request = { query: 'lighthouse painted', history: [], counter };
    const first = await source.collect(request, { maxTokens: 10_000, source: 'recall' });
    const counted = counter.texts;
    expect(first.map((block) => block.metadata.messageId)).toEqual(
      expect.arrayContaining(['m0', 'm5', 'm10', 'm35']),
    );
    expect(counted).toBeGreaterThanOrEqual(first.length);
    const second = await source.collect(request, { maxTokens: 10_000, source: 'recall' });
    expect(second).toEqual(first);
    expect(counter.texts).toBe(counted);
  });
});
