import { type ContextSource, createBlock } from '../core/index.ts';
import { fitBlocks } from './fit-blocks.ts';
import type { MemoryView } from './memory-store.ts';

/** Options of {@link createL2ImportantSource}. */
export interface L2ImportantSourceOptions {
  memory: MemoryView;
  /** Budget key; default `L2_important` (seed 001). */
  name?: string;
  /** Default `knowledge__context`. */
  layer?: string;
  /** 0..1, default 0.8. */
  priority?: number;
  /** Most entries considered; default 50. */
  limit?: number;
}

/**
 * Seed 001's `L2ImportantSource`. Reads the memory's L2 tier — messages marked important or
 * scored at or above the threshold (decisions, requirements, user corrections, preferences;
 * see `scoreImportance`) — most important first, skipping messages already in the request's
 * history, and fills `knowledge__context` with one block per entry (`[decision] user: …`),
 * block priority = importance, within the budget.
 */
export function createL2ImportantSource(options: L2ImportantSourceOptions): ContextSource {
  const name = options.name ?? 'L2_important';
  const layer = options.layer ?? 'knowledge__context';
  return {
    name,
    layer,
    priority: options.priority ?? 0.8,
    async collect(request, budget) {
      const sent = new Set(request.history.map((message) => message.id));
      const blocks = options.memory
        .important({ limit: options.limit ?? 50 })
        .filter((entry) => !sent.has(entry.id))
        .map((entry) =>
          createBlock(
            {
              id: `${name}:${entry.id}`,
              layer,
              source: name,
              content: `${entry.reasons.length > 0 ? `[${entry.reasons.join(', ')}] ` : ''}${entry.text}`,
              priority: Math.min(1, Math.max(0, entry.importance)),
              metadata: {
                messageId: entry.id,
                importance: entry.importance,
                reasons: entry.reasons,
                seq: entry.seq,
              },
            },
            request.counter,
          ),
        );
      return fitBlocks(blocks, budget.maxTokens);
    },
  };
}
