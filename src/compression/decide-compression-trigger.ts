import { CtxloomError, type Message, type TokenCounter } from '../core/index.ts';

/** Options of {@link decideCompressionTrigger}. */
export interface CompressionTriggerOptions {
  /** The model's context window, in tokens. Range ≥ 1. */
  window: number;
  /** Fraction of `window` at which compressing is advised. Default 0.7, range (0, hard]. */
  soft?: number;
  /** Fraction of `window` at which compressing is required. Default 0.9, range [soft, 1]. */
  hard?: number;
  /** Counter of the target model; wrap it in `withTokenCache` so repeated calls count only new text. */
  counter: TokenCounter;
  /** Tokens reserved for the reply, added to the messages' count. Default 0. */
  outputReserve?: number;
}

/** The decision and the numbers behind it. */
export interface CompressionTrigger {
  /** `none`; `soft`: compress when convenient; `hard`: compress before sending. */
  level: 'none' | 'soft' | 'hard';
  /** Tokens of the messages plus the output reserve. */
  tokens: number;
  window: number;
  softLimit: number;
  hardLimit: number;
}

/**
 * The automatic trigger of seed 004 §10.2, decided on the message list about to be sent:
 * `hard` at or above `hard × window` tokens, `soft` at or above `soft × window`, else `none`.
 * A control-plane rule; no model is asked.
 * @example decideCompressionTrigger(messages, { window: 128_000, counter }).level
 */
export function decideCompressionTrigger(
  messages: readonly Message[],
  options: CompressionTriggerOptions,
): CompressionTrigger {
  const soft = options.soft ?? 0.7;
  const hard = options.hard ?? 0.9;
  if (!(options.window >= 1) || !(soft > 0 && soft <= hard && hard <= 1)) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: `need window ≥ 1 and 0 < soft ≤ hard ≤ 1, got window ${options.window}, soft ${soft}, hard ${hard}`,
      path: 'options',
    });
  }
  const tokens = options.counter.countMessages(messages) + (options.outputReserve ?? 0);
  const softLimit = Math.floor(options.window * soft);
  const hardLimit = Math.floor(options.window * hard);
  const level = tokens >= hardLimit ? 'hard' : tokens >= softLimit ? 'soft' : 'none';
  return { level, tokens, window: options.window, softLimit, hardLimit };
}
