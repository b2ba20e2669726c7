import type { Message } from '../core/index.ts';
import { measureMessage } from '../core/measure-messages.ts';
import {
  type CompressionTrigger,
  type CompressionTriggerOptions,
  decideCompressionTrigger,
} from './decide-compression-trigger.ts';

/** A stateful {@link decideCompressionTrigger} for one session. */
export interface CompressionTriggerDecider {
  decide(messages: readonly Message[]): CompressionTrigger;
  /** Messages whose count is memoised (for tests and reports). */
  readonly size: () => number;
}

/**
 * {@link decideCompressionTrigger} with each message's token count memoised by object
 * identity (core's `measureMessage`), so re-checking a growing history before every call costs one map
 * lookup per old message and a count only for new ones. Messages must be treated as immutable
 * (as the pipeline does); a message edited in place keeps its old count. Thresholds are the
 * same as {@link decideCompressionTrigger}'s.
 * @example const trigger = createCompressionTrigger({ window: 128_000, counter }); trigger.decide(messages).level
 */
export function createCompressionTrigger(options: CompressionTriggerOptions): CompressionTriggerDecider {
  const seen = new WeakSet<Message>();
  let size = 0;
  const { counter } = options;
  // Core's per-message memo (shared with the compile pipeline for the same counter).
  const memoCounter = {
    ...counter,
    countMessages(messages: readonly Message[]): number {
      if (messages.length === 0) return 0;
      let total = counter.overhead.perRequest;
      for (const message of messages) {
        if (!seen.has(message)) {
          seen.add(message);
          size++;
        }
        total += measureMessage(message, counter).tokens;
      }
      return total;
    },
  };
  return {
    decide: (messages) => decideCompressionTrigger(messages, { ...options, counter: memoCounter }),
    size: () => size,
  };
}
