import { type CachedTokenCounter, type TokenCacheOptions, withTokenCache } from '../core/index.ts';
import { createEstimatorCounter } from './estimator-counter.ts';
import { createExactCounter } from './exact-counter.ts';
import { resolveTokenizer, type TokenizerKind } from './resolve-tokenizer.ts';

const shared = new Map<TokenizerKind, CachedTokenCounter>();

/** Options of {@link getTokenCounter}. */
export interface GetTokenCounterOptions {
  /** Cache settings; when given, a new counter is built instead of the shared one. */
  cache?: TokenCacheOptions;
}

/**
 * The counter for `model`, chosen by {@link resolveTokenizer} and wrapped in `withTokenCache`
 * so each distinct text is tokenised once. Counters are shared per tokenizer across calls
 * (gpt-4o and gpt-5 get the same instance); the vocabulary loads on the first count.
 *
 * @example
 * const counter = getTokenCounter('openai:gpt-4o');
 * counter.countMessages([{ id: '1', role: 'user', content: 'Hi' }]);
 */
export function getTokenCounter(model: string, options: GetTokenCounterOptions = {}): CachedTokenCounter {
  const { tokenizer } = resolveTokenizer(model);
  if (options.cache !== undefined) return withTokenCache(createCounterFor(tokenizer), options.cache);
  let counter = shared.get(tokenizer);
  if (counter === undefined) {
    counter = withTokenCache(createCounterFor(tokenizer));
    shared.set(tokenizer, counter);
  }
  return counter;
}

/** A new, uncached counter for a tokenizer kind. */
export function createCounterFor(tokenizer: TokenizerKind) {
  return tokenizer === 'estimate' ? createEstimatorCounter() : createExactCounter({ encoding: tokenizer });
}
