import type { TokenCounter } from '../../core/tokens.ts';
import { createO200kCounter } from '../../tokenizers/index.ts';

let shared: TokenCounter | undefined;

/** The counter processes use when none is given: o200k, created once per process. */
export function defaultCounter(counter?: TokenCounter): TokenCounter {
  if (counter !== undefined) return counter;
  shared ??= createO200kCounter();
  return shared;
}
