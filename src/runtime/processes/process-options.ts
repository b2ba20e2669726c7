import type { TokenCounter } from '../../core/tokens.ts';
import type { BlackboardDefinition } from '../../state/index.ts';
import type { NodeFactoryOptions } from '../agents/node-factory.ts';

/** Options every process takes. */
export interface ProcessOptions {
  /**
   * Token counter for budgets, counted through one shared token cache (decision 078). Default:
   * the o200k tokenizer (`getTokenCounter('gpt-4o')`).
   */
  counter?: TokenCounter;
  /** The Blackboard (with application extensions). Default the plain Blackboard. */
  blackboard?: BlackboardDefinition;
  /** Seed 000's single share switch for shared `__context` layers. Default true. */
  enableShareContext?: boolean;
  /** Epoch-millisecond clock for timeline entries. Default `Date.now`. */
  now?: () => number;
}

/** The node-factory options of a process. */
export function nodeOptions(options: ProcessOptions, counter: TokenCounter): NodeFactoryOptions {
  return {
    counter,
    ...(options.blackboard === undefined ? {} : { blackboard: options.blackboard }),
    ...(options.now === undefined ? {} : { now: options.now }),
  };
}
