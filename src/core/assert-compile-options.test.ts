import { describe, expect, it } from 'vitest';
import { createCharCounter } from '../testing/char-counter.ts';
import { compileContext } from './compile.ts';
import type { CompileOptions } from './compile-types.ts';
import { CtxloomError } from './errors.ts';

const counter = createCharCounter();
const request = {
  history: [
    { id: 'u1', role: 'user' as const, content: 'hello '.repeat(40) },
    { id: 'a1', role: 'assistant' as const, content: 'hi '.repeat(40) },
  ],
  query: 'q',
};

async function errorOf(options: Partial<CompileOptions>): Promise<unknown> {
  return compileContext(request, { counter, window: 200, ...options } as CompileOptions).then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe('compileContext with an option outside its range', () => {
  it.each([
    ['historyChunkRatio', { historyChunkRatio: -1 }, 'historyChunkRatio must be within 0..1, got -1'],
    ['historyChunkRatio', { historyChunkRatio: 2 }, 'historyChunkRatio must be within 0..1, got 2'],
    [
      'historyChunkRatio',
      { historyChunkRatio: Number.NaN },
      'historyChunkRatio must be within 0..1, got NaN',
    ],
    ['historyPriority', { historyPriority: 2 }, 'historyPriority must be within 0..1, got 2'],
    ['summaryMaxTokens', { summaryMaxTokens: -5 }, 'summaryMaxTokens must be an integer ≥ 0, got -5'],
    ['minTrimTokens', { minTrimTokens: 1.5 }, 'minTrimTokens must be an integer ≥ 0, got 1.5'],
    [
      'policy.order',
      { policy: { order: 'cache_friendly' } },
      'policy.order must be "default" or "cache-friendly", got "cache_friendly"',
    ],
  ])('refuses %s (%o) as invalid-argument naming it', async (path, options, message) => {
    const error = await errorOf(options as Partial<CompileOptions>);
    expect(CtxloomError.is(error, 'invalid-argument')).toBe(true);
    expect((error as CtxloomError).path).toBe(path);
    expect((error as CtxloomError).message).toBe(`${message} (at ${path})`);
  });

  it('takes the ends of each range', async () => {
    for (const options of [
      { historyChunkRatio: 0 },
      { historyChunkRatio: 1 },
      { historyPriority: 0 },
      { historyPriority: 1 },
      { summaryMaxTokens: 0 },
      { minTrimTokens: 0 },
      { policy: { order: 'default' as const } },
    ]) {
      const { report } = await compileContext(request, { counter, window: 200, ...options });
      expect(report.totalTokens).toBeLessThanOrEqual(report.inputBudget);
    }
  });
});
