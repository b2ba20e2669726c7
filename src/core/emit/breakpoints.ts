import { createLayerRegistry, type LayerRegistry } from '../layers.ts';
import type { Message } from '../message.ts';
import { splitInstructions } from './stable.ts';

/** Anthropic accepts at most four `cache_control` breakpoints per request. */
export const MAX_CACHE_BREAKPOINTS = 4;

/**
 * Where prompt-cache breakpoints pay off in composed messages (indices, ascending, at most
 * `max`): after the last stable leading system layer; on the last history message before
 * the query (the next turn's request starts with the same prefix up to there); on the query
 * when tool-loop steps follow it; and on the last message (the next step or turn extends
 * it). Volatile layers and the query sit after the history's breakpoint, so per-call
 * content never invalidates the cached history.
 */
export function cacheBreakpoints(
  messages: readonly Message[],
  options: { layers?: LayerRegistry; max?: number } = {},
): number[] {
  const max = options.max ?? MAX_CACHE_BREAKPOINTS;
  const { lastStable } = splitInstructions(messages, options.layers ?? createLayerRegistry());
  const queryIndex = messages.findIndex((message) => message.metadata?.layer === 'query');
  let historyEnd = -1;
  const before = queryIndex < 0 ? messages.length : queryIndex;
  for (let index = before - 1; index >= 0; index--) {
    if (messages[index]?.metadata?.layer === 'history') {
      historyEnd = index;
      break;
    }
  }
  const wanted = [
    lastStable,
    historyEnd,
    queryIndex >= 0 && queryIndex < messages.length - 1 ? queryIndex : -1,
    messages.length - 1,
  ];
  const unique = [...new Set(wanted.filter((index) => index >= 0))].sort((a, b) => a - b);
  // Over the limit, the earliest of the later ones goes first (the system and last stay).
  while (unique.length > max) unique.splice(unique.length > 2 ? 1 : 0, 1);
  return unique;
}
