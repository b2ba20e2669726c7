import { type ContextSource, createBlock } from '../core/index.ts';
import { fitBlocks } from './fit-blocks.ts';
import type { SharedPool } from './shared-pool.ts';

/** Options of {@link createSharedPoolSource}. */
export interface SharedPoolSourceOptions {
  pool: SharedPool;
  /** Namespaces this agent reads (it sees nothing else). */
  namespaces: readonly string[];
  /** Budget key; default `shared_pool`. */
  name?: string;
  /** Default `knowledge__context`. */
  layer?: string;
  /** 0..1, default 0.6. */
  priority?: number;
  /** Entries considered; default 20. */
  limit?: number;
}

/**
 * Seed 001's `SharedPoolSource`: entries other agents published to the namespaces this agent
 * subscribes to. With a query, entries are ranked by BM25 against it (best normalised to
 * priority 1); with no matching entry or an empty query, the newest entries come first. Fills
 * `knowledge__context` with `[namespace/key by publisher] content` blocks within the budget.
 */
export function createSharedPoolSource(options: SharedPoolSourceOptions): ContextSource {
  const name = options.name ?? 'shared_pool';
  const layer = options.layer ?? 'knowledge__context';
  const limit = options.limit ?? 20;
  return {
    name,
    layer,
    priority: options.priority ?? 0.6,
    async collect(request, budget) {
      const hits = options.pool.search(request.query, options.namespaces, limit);
      const best = hits[0]?.score ?? 1;
      const ranked =
        hits.length > 0
          ? hits.map((hit) => ({ entry: hit.entry, priority: hit.score / best }))
          : options.pool
              .list(options.namespaces)
              .slice(0, limit)
              .map((entry, position) => ({ entry, priority: 0.5 / (1 + position) }));
      const blocks = ranked.map(({ entry, priority }) =>
        createBlock(
          {
            id: `${name}:${entry.namespace}/${entry.key}`,
            layer,
            source: name,
            content: `[${entry.namespace}/${entry.key} by ${entry.publisher}] ${entry.content}`,
            priority: Math.min(1, Math.max(0, priority)),
            metadata: {
              namespace: entry.namespace,
              key: entry.key,
              publisher: entry.publisher,
              version: entry.version,
            },
          },
          request.counter,
        ),
      );
      return fitBlocks(blocks, budget.maxTokens);
    },
  };
}
