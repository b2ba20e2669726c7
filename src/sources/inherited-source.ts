import { type ContextSource, createBlock } from '../core/index.ts';
import { fitBlocks } from './fit-blocks.ts';
import type { MemoryView } from './memory-store.ts';

/** Options of {@link createInheritedSource}. */
export interface InheritedSourceOptions {
  /** The parent agent's memory, read only (`store.view()`). */
  parent: MemoryView;
  /** Budget key; default `INHERITED` (seed 001). */
  name?: string;
  /** Default `knowledge__context`. */
  layer?: string;
  /** 0..1, default 0.7. */
  priority?: number;
  /** Parent L2 entries offered, most important first; default 20. */
  importantLimit?: number;
  /** Parent L1 messages offered after them, newest last; default 6 (0 = none). */
  recentLimit?: number;
}

/**
 * Seed 001's `InheritedSource`: what a sub-agent inherits from its parent. Reads the parent's
 * memory through a read-only {@link MemoryView} — its L2 important entries, then its last few
 * L1 messages — and fills `knowledge__context`, each block prefixed with the parent's agent
 * id (`(from planner) user: …`). It never writes to the parent.
 */
export function createInheritedSource(options: InheritedSourceOptions): ContextSource {
  const name = options.name ?? 'INHERITED';
  const layer = options.layer ?? 'knowledge__context';
  const { parent } = options;
  return {
    name,
    layer,
    priority: options.priority ?? 0.7,
    async collect(request, budget) {
      const important = parent.important({ limit: options.importantLimit ?? 20 });
      const importantIds = new Set(important.map((entry) => entry.id));
      const recentLimit = options.recentLimit ?? 6;
      const recent =
        recentLimit === 0
          ? []
          : parent.recent({ limit: recentLimit }).filter((entry) => !importantIds.has(entry.id));
      const entries = [
        ...important.map((entry) => ({ entry, priority: Math.min(1, entry.importance), tier: 'L2' })),
        ...recent.map((entry, position) => ({
          entry,
          priority: 0.3 + (0.3 * (position + 1)) / recent.length,
          tier: 'L1',
        })),
      ];
      const blocks = entries.map(({ entry, priority, tier }) =>
        createBlock(
          {
            id: `${name}:${parent.agentId}:${entry.id}`,
            layer,
            source: name,
            content: `(from ${parent.agentId}) ${entry.text}`,
            priority,
            metadata: {
              parentAgentId: parent.agentId,
              parentSessionId: parent.sessionId,
              messageId: entry.id,
              tier,
            },
          },
          request.counter,
        ),
      );
      return fitBlocks(blocks, budget.maxTokens);
    },
  };
}
