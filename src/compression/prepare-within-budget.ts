import { CtxloomError, type Message } from '../core/index.ts';
import {
  type CompressionTrigger,
  type CompressionTriggerOptions,
  decideCompressionTrigger,
} from './decide-compression-trigger.ts';

/** Limits {@link PrepareWithinBudgetOptions.build} must compile under. */
export interface BuildLimits {
  /** Set while clipping is forced: compile with at most this many input tokens (core's `maxInputTokens`). */
  maxInputTokens?: number;
}

/** What a build returns: the messages, and what the limit made it leave out. */
export interface BuiltMessages {
  messages: Message[];
  /** Ids of history messages the `maxInputTokens` limit left out (from the compile report), oldest first. */
  clippedIds?: string[];
}

/** Options of {@link prepareWithinBudget}. */
export interface PrepareWithinBudgetOptions extends CompressionTriggerOptions {
  /**
   * Compiles the message list to send (system, task, context views, history, query) through
   * the core pipeline, under `limits` — the only place messages are cut, so the compile's
   * report is what is sent.
   */
  build: (limits: BuildLimits) => BuiltMessages | Promise<BuiltMessages>;
  /** Compresses the session's context (TODO and artifact views, history summary); called at most once. */
  compress: (level: 'soft' | 'hard') => void | Promise<void>;
  /** The session's `forceContextClipping`: every build compiles under the soft limit. Default false. */
  forceContextClipping?: boolean;
}

/** What was sent and what it took. */
export interface PreparedMessages {
  messages: Message[];
  /** The trigger decided on the returned list. */
  trigger: CompressionTrigger;
  /** The level that made it compress, or `none`. */
  compressed: 'none' | 'soft' | 'hard';
  /** Messages left out by forced clipping, oldest first. */
  clippedIds: string[];
}

/**
 * The integration point of seed 004 §10.3 before every model call: build the messages, decide
 * the trigger, compress once when it fires (soft or hard) and rebuild. If the rebuilt list is
 * still at or above the hard limit it throws `over-budget` asking the user to narrow the
 * scope — it never loops and never retries a second compression.
 */
export async function prepareWithinBudget(options: PrepareWithinBudgetOptions): Promise<PreparedMessages> {
  const limits: BuildLimits =
    options.forceContextClipping === true
      ? {
          maxInputTokens: Math.max(
            0,
            Math.floor(options.window * (options.soft ?? 0.7)) - (options.outputReserve ?? 0) - 1,
          ),
        }
      : {};
  const build = async () => {
    const built = await options.build(limits);
    return { messages: built.messages, clippedIds: built.clippedIds ?? [] };
  };
  const first = await build();
  const trigger = decideCompressionTrigger(first.messages, options);
  if (trigger.level === 'none') return { ...first, trigger, compressed: 'none' };
  await options.compress(trigger.level);
  const second = await build();
  const after = decideCompressionTrigger(second.messages, options);
  if (after.level === 'hard') {
    throw new CtxloomError({
      code: 'over-budget',
      message: `the request needs ${after.tokens} tokens after compression, over the limit of ${after.hardLimit} (window ${after.window}); please narrow the scope (fewer tables, one job at a time)`,
      details: {
        tokens: after.tokens,
        hardLimit: after.hardLimit,
        window: after.window,
        firstTrigger: trigger.level,
      },
    });
  }
  return { ...second, trigger: after, compressed: trigger.level };
}
