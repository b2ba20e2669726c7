import { createTokenCounter, NO_MESSAGE_OVERHEAD, type TokenCounter } from '../core/index.ts';

/**
 * A counter charging one token per UTF-16 code unit: an upper bound for BPE tokenizers on
 * ordinary text, used only where a caller gave no tokenizer and a view must stay bounded.
 * Reports `exact: false`.
 */
export function createCharacterBound(): TokenCounter {
  return createTokenCounter({
    name: 'character-bound',
    exact: false,
    countText: (text) => text.length,
    overhead: NO_MESSAGE_OVERHEAD,
  });
}
