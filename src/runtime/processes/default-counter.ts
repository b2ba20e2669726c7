import { type TokenCounter, withSharedTokenCache } from '../../core/tokens.ts';
import { getTokenCounter } from '../../tokenizers/index.ts';

/**
 * The counter a process counts with: the one given, with its texts cached once per counter
 * ({@link withSharedTokenCache}: every agent call measures the whole history again), or the
 * shared o200k counter (`getTokenCounter`'s, cached).
 */
export function defaultCounter(counter?: TokenCounter): TokenCounter {
  return counter === undefined ? getTokenCounter('gpt-4o') : withSharedTokenCache(counter);
}
