import { describe, expect, it } from 'vitest';
import { resolveTokenizer } from './resolve-tokenizer.ts';

describe('resolveTokenizer', () => {
  it.each([
    'gpt-4o',
    'gpt-4o-mini',
    'chatgpt-4o-latest',
    'gpt-4.1',
    'gpt-4.1-nano',
    'gpt-5',
    'gpt-5.1-codex',
    'gpt-5-mini',
    'o1',
    'o1-mini',
    'o3-pro',
    'o4-mini',
    'openai:gpt-4o',
    'openai/gpt-4.1-mini',
    'GPT-4O',
  ])('maps %s to o200k_base', (model) => {
    expect(resolveTokenizer(model).tokenizer).toBe('o200k_base');
  });

  it.each(['gpt-4', 'gpt-4-0613', 'gpt-4-turbo', 'gpt-4-32k', 'gpt-3.5-turbo', 'azure:gpt-35-turbo'])(
    'maps %s to cl100k_base',
    (model) => {
      expect(resolveTokenizer(model).tokenizer).toBe('cl100k_base');
    },
  );

  it.each([
    ['claude-sonnet-4-5', 'anthropic'],
    ['anthropic:claude-3-5-haiku-latest', 'anthropic'],
    ['qwen2.5-72b-instruct', 'qwen'],
    ['openai-compatible:qwen3-32b', 'qwen'],
    ['deepseek-chat', 'deepseek'],
    ['gemini-2.5-pro', 'google'],
    ['llama-3.1-8b', 'unknown'],
    ['', 'unknown'],
  ] as const)('maps %s to the estimator as family %s', (model, family) => {
    const resolution = resolveTokenizer(model);
    expect(resolution.tokenizer).toBe('estimate');
    expect(resolution.family).toBe(family);
    expect(resolution.reason.length).toBeGreaterThan(10);
  });

  it('strips the provider prefix and lower-cases the model', () => {
    expect(resolveTokenizer('OpenAI:GPT-4o-Mini').model).toBe('gpt-4o-mini');
  });
});
