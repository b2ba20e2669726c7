import { fingerprintContent } from '../core/fingerprint.ts';
import { type HistoryBlockMetadata, recencyPriority } from '../core/history.ts';
import type { ContextBlock, ContextSource } from '../core/index.ts';
import { measureMessage } from '../core/measure-messages.ts';
import type { MemoryView } from './memory-store.ts';
import { groupTurns } from './turns.ts';

/** Options of {@link createL1RecentSource}. */
export interface L1RecentSourceOptions {
  memory: MemoryView;
  /** Budget key; default `L1_recent` (seed 001's allocation name). */
  name?: string;
  /** Default `history`: the blocks become history messages in the compiled input. */
  layer?: string;
  /** 0..1, default 0.9. */
  priority?: number;
  /** Most messages read from L1; default the store's `recentLimit`. */
  maxMessages?: number;
}

/**
 * Seed 001's `L1RecentSource`. Reads the memory's L1 tier (its latest messages) and returns
 * the newest **whole turns** that fit the budget — a turn is a user message and everything
 * answering it, so tool calls and their results always stay together — as `history` blocks
 * (one per message, `metadata` = `{ message, index, error }` like the core's history blocks,
 * `group` = the turn). Messages already in the request's history are skipped, so use it for a
 * memory the checkpoint history does not carry (a resumed session, a sub-agent, another
 * channel). Priority rises with recency.
 */
export function createL1RecentSource(options: L1RecentSourceOptions): ContextSource {
  const name = options.name ?? 'L1_recent';
  const layer = options.layer ?? 'history';
  return {
    name,
    layer,
    priority: options.priority ?? 0.9,
    async collect(request, budget) {
      const sent = new Set(request.history.map((message) => message.id));
      const entries = options.memory
        .recent(options.maxMessages === undefined ? {} : { limit: options.maxMessages })
        .filter((entry) => !sent.has(entry.message.id));
      const turns = groupTurns(entries.map((entry) => entry.message));
      const count = entries.length;
      let index = count;
      let remaining = budget.maxTokens;
      const kept: ContextBlock[][] = [];
      for (let turnIndex = turns.length - 1; turnIndex >= 0; turnIndex--) {
        const turn = turns[turnIndex];
        if (turn === undefined) continue;
        index -= turn.messages.length;
        const blocks = turn.messages.map((message, offset): ContextBlock => {
          const measure = measureMessage(message, request.counter);
          const content = measure.text;
          const position = index + offset;
          const metadata: HistoryBlockMetadata = { message, index: position, error: measure.error };
          return {
            id: `${name}:${message.id}`,
            layer,
            source: name,
            content,
            tokens: measure.tokens,
            priority: recencyPriority(position, count),
            fingerprint: fingerprintContent(`history\u0000${message.id}\u0000${content}`),
            group: `turn:${turn.id}`,
            metadata,
          };
        });
        const tokens = blocks.reduce((sum, block) => sum + block.tokens, 0);
        if (tokens > remaining) break;
        remaining -= tokens;
        kept.unshift(blocks);
      }
      return kept.flat();
    },
  };
}
