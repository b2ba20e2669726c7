import type { CompileOptions } from './compile-types.ts';
import { CtxloomError } from './errors.ts';

const ORDERS: readonly unknown[] = ['default', 'cache-friendly'];

/**
 * Throws `invalid-argument`, naming the option, when a compile option is outside its
 * documented range: `historyChunkRatio` and `historyPriority` in 0..1, `summaryMaxTokens` and
 * `minTrimTokens` integers ≥ 0, `policy.order` `default` or `cache-friendly`. (The window,
 * reserve, ratios, input cap, history window and keep ratio are checked where they are read.)
 */
export function assertCompileOptions(options: CompileOptions): void {
  const { historyChunkRatio, historyPriority, summaryMaxTokens, minTrimTokens, policy } = options;
  if (historyChunkRatio !== undefined && !(historyChunkRatio >= 0 && historyChunkRatio <= 1))
    throw invalid('historyChunkRatio', `must be within 0..1, got ${historyChunkRatio}`);
  if (historyPriority !== undefined && !(historyPriority >= 0 && historyPriority <= 1))
    throw invalid('historyPriority', `must be within 0..1, got ${historyPriority}`);
  if (summaryMaxTokens !== undefined && !(Number.isInteger(summaryMaxTokens) && summaryMaxTokens >= 0))
    throw invalid('summaryMaxTokens', `must be an integer ≥ 0, got ${summaryMaxTokens}`);
  if (minTrimTokens !== undefined && !(Number.isInteger(minTrimTokens) && minTrimTokens >= 0))
    throw invalid('minTrimTokens', `must be an integer ≥ 0, got ${minTrimTokens}`);
  if (policy?.order !== undefined && !ORDERS.includes(policy.order))
    throw invalid(
      'policy.order',
      `must be "default" or "cache-friendly", got ${JSON.stringify(policy.order)}`,
    );
}

function invalid(path: string, problem: string): CtxloomError {
  return new CtxloomError({ code: 'invalid-argument', message: `${path} ${problem}`, path });
}
