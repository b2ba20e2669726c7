import { createTokenCounter, NO_MESSAGE_OVERHEAD, type TokenCounter } from '../core/index.ts';

/**
 * A counter where one character (UTF-16 code unit) is one token and messages carry no
 * overhead, so budgets in tests read straight off the strings. For tests only: real
 * budgets need `ctxloom/tokenizers`.
 */
export function createCharCounter(): TokenCounter {
  return createTokenCounter({
    name: 'chars',
    exact: true,
    countText: (text) => text.length,
    overhead: NO_MESSAGE_OVERHEAD,
    // One token per unit: every position splits a count.
    isSplitPoint: () => true,
  });
}
