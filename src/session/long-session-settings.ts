import type { ContextConfig } from '../workspace/index.ts';

/** How a session that outgrows its window divides the history budget (decision 040). */
export interface LongSessionSettings {
  recallRatio: number;
  summaryRatio: number;
  keepRatio: number;
  softLimitRatio: number;
}

/** The defaults of {@link LongSessionSettings}, chosen by `npm run bench -- long-session` (decision 040). */
export const DEFAULT_LONG_SESSION: Readonly<LongSessionSettings> = Object.freeze({
  recallRatio: 0.55,
  summaryRatio: 0.04,
  keepRatio: 0.5,
  softLimitRatio: 0.9,
});

/** The resolved long-session settings of a manifest (`undefined` under `last-n`). */
export function longSessionSettings(config: ContextConfig): LongSessionSettings | undefined {
  if (config.chatHistory.strategy === 'last-n') return undefined;
  const set = config.chatHistory.longSession ?? {};
  return {
    recallRatio: set.recallRatio ?? DEFAULT_LONG_SESSION.recallRatio,
    summaryRatio: set.summaryRatio ?? DEFAULT_LONG_SESSION.summaryRatio,
    keepRatio: set.keepRatio ?? DEFAULT_LONG_SESSION.keepRatio,
    softLimitRatio: set.softLimitRatio ?? DEFAULT_LONG_SESSION.softLimitRatio,
  };
}

/** Input budget of a manifest: window − output reserve. */
export function inputBudgetOf(config: ContextConfig): number {
  return config.budget.window - Math.floor(config.budget.window * config.budget.outputReserve);
}
