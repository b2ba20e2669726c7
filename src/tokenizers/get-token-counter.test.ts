import { describe, expect, it } from 'vitest';
import { describeTokenCounterConformance } from '../testing/index.ts';
import { getTokenCounter } from './get-token-counter.ts';

describeTokenCounterConformance('getTokenCounter(gpt-4o)', () => getTokenCounter('gpt-4o'));
describeTokenCounterConformance('getTokenCounter(claude)', () => getTokenCounter('claude-sonnet-4-5'), {
  monotone: false,
});

describe('getTokenCounter', () => {
  it('returns a cached exact counter for OpenAI models', () => {
    const counter = getTokenCounter('openai:gpt-4o');
    expect(counter.name).toBe('o200k_base');
    expect(counter.exact).toBe(true);
    const text = 'A long enough text to pass the cache threshold.';
    counter.countText(text);
    const before = counter.stats().hits;
    counter.countText(text);
    expect(counter.stats().hits).toBe(before + 1);
  });

  it('shares one counter per tokenizer across models', () => {
    expect(getTokenCounter('gpt-4o')).toBe(getTokenCounter('gpt-5-mini'));
    expect(getTokenCounter('gpt-4')).not.toBe(getTokenCounter('gpt-4o'));
    expect(getTokenCounter('gpt-4').name).toBe('cl100k_base');
  });

  it('gives estimator counters to models without a public tokenizer', () => {
    for (const model of ['claude-opus-4', 'qwen3-max', 'deepseek-r1', 'gemini-2.5-flash', 'mystery-model']) {
      const counter = getTokenCounter(model);
      expect(counter.exact).toBe(false);
      expect(counter.name).toBe('estimate-cjk');
    }
  });

  it('builds a separate counter when cache options are given', () => {
    const counter = getTokenCounter('gpt-4o', { cache: { maxEntries: 10 } });
    expect(counter).not.toBe(getTokenCounter('gpt-4o'));
    expect(counter.countText('Hello, world!')).toBe(4);
  });
});
