import type { Message } from '../core/index.ts';
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
 * identity (a `WeakMap`), so re-checking a growing history before every call costs one map
 * lookup per old message and a count only for new ones. Messages must be treated as immutable
 * (as the pipeline does); a message edited in place keeps its old count. Thresholds are the
 * same as {@link decideCompressionTrigger}'s.
 * @example const trigger = createCompressionTrigger({ window: 128_000, counter }); trigger.decide(messages).level
 */
export function createCompressionTrigger(options: CompressionTriggerOptions): CompressionTriggerDecider {
  const memo = new WeakMap<Message, number>();
  let size = 0;
  const { counter } = options;
  const perRequest = counter.overhead.perRequest;
  const memoCounter = {
    ...counter,
    countMessages(messages: readonly Message[]): number {
      if (messages.length === 0) return 0;
      let total = perRequest;
      for (const message of messages) {
        let cost = memo.get(message);
        if (cost === undefined) {
          cost = counter.countMessages([message]) - perRequest;
          memo.set(message, cost);
          size++;
        }
        total += cost;
      }
      return total;
    },
  };
  return {
    decide: (messages) => decideCompressionTrigger(messages, { ...options, counter: memoCounter }),
    size: () => size,
  };
}
