import { describe, expect, it } from 'vitest';
import type { CompiledContext } from '../core/index.ts';
import { getTokenCounter } from '../tokenizers/index.ts';
import { fitWithinBudget } from './fit-session-call.ts';
import { DEFAULT_LONG_SESSION } from './long-session-settings.ts';

/** A compiled call over its budget with nothing after the cut to move. */
const over = {
  report: { totalTokens: 3798, inputBudget: 3750, layers: [] },
  kept: [],
  dropped: [],
} as unknown as CompiledContext;

const fitOver = (stepping: boolean) =>
  fitWithinBudget({
    settings: DEFAULT_LONG_SESSION,
    counter: getTokenCounter('gpt-4o'),
    compile: async () => over,
    core: (compiled) => compiled,
    live: () => [],
    stepping,
    move: async () => undefined,
  });

describe('fitWithinBudget, a call over its budget with no history to move', () => {
  it('names the message as what to shorten at a turn’s first call', async () => {
    await expect(fitOver(false)).rejects.toMatchObject({
      code: 'over-budget',
      message: expect.stringContaining("(shorten the message or the session's fixed layers)"),
    });
  });

  it('names the turn’s tool steps in a tool step: the message is not what overran', async () => {
    const error = await fitOver(true).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'over-budget', path: 'budget.window' });
    expect((error as Error).message).toContain("this turn's tool steps");
    expect((error as Error).message).not.toContain('shorten the message');
  });
});
