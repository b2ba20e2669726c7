import type { CollectRequest, Message, TokenBudget } from '../core/index.ts';
import { createCharCounter } from '../testing/index.ts';

/** Test helper: a collect request with the character counter (1 char = 1 token). */
export function makeRequest(query: string, history: readonly Message[] = []): CollectRequest {
  return { query, history, counter: createCharCounter() };
}

/** Test helper: a budget of `maxTokens` for `source`. */
export function makeBudget(maxTokens: number, source = 'test'): TokenBudget {
  return { maxTokens, source };
}
