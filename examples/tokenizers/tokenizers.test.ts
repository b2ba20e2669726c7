import { afterEach, describe, expect, it, vi } from 'vitest';
import { expectQuotedWhole } from '../doc-examples.test-support.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('docs/tokenizers.md', () => {
  it('quotes count-tokens.ts and my-counter.test.ts whole (the second runs as its own test file)', async () => {
    await expectQuotedWhole('docs/tokenizers.md', [
      'examples/tokenizers/count-tokens.ts',
      'examples/tokenizers/my-counter.test.ts',
    ]);
  });

  it('counts what the comments of count-tokens.ts say', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    await import('./count-tokens.ts');
    const logged = log.mock.calls.map((call) => call[0]);
    expect(logged).toEqual([
      3,
      8,
      {
        model: 'claude-sonnet-4-5',
        family: 'anthropic',
        tokenizer: 'estimate',
        reason: expect.stringContaining('Anthropic publishes no tokenizer'),
      },
      5,
    ]);
  });
});
