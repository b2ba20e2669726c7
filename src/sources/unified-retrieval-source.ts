import type { ContextSource } from '../core/index.ts';
import type { RecallSource } from '../retrieval/recall-source.ts';
import { createReranker, type Reranker } from '../retrieval/reranker.ts';
import { createRetriever, type RecallSourceConfig } from '../retrieval/retriever.ts';
import type { MemoryView } from './memory-store.ts';

/** Options of {@link createUnifiedRetrievalSource}. */
export interface UnifiedRetrievalSourceOptions {
  /** Memory whose L4 index is searched (origin `memory`). */
  memory?: MemoryView;
  /** Knowledge bases (or any recall sources), each optionally with `recallLimit`/`minScore`. */
  knowledgeBases?: readonly (RecallSource | RecallSourceConfig)[];
  /** Budget key; default `retrieval` (seed 001). */
  name?: string;
  /** Default `knowledge__context`. */
  layer?: string;
  /** 0..1, default 0.6. */
  priority?: number;
  /** Per-source recall, default 20. */
  recallLimit?: number;
  /** Minimum recall score of memory candidates, 0..1, default 0. */
  memoryMinScore?: number;
  /** Memory turns on each side added to a hit (Mastra's `messageRange`); default 0. */
  messageRange?: number;
  reranker?: Reranker;
  /** Query rewriting settings, or false; default 5 messages, top 6 words. */
  rewrite?: { recentMessages?: number; topK?: number } | false;
  /** Skip memory hits already present in the request's history; default true. */
  excludeHistory?: boolean;
}

/**
 * Seed 001's `UnifiedRetrievalSource`, the passive retrieval channel: before every call it
 * rewrites the query from the recent history, recalls in parallel from the memory's L4 index
 * and every knowledge base, reranks the union (dedup + seed signals) and injects the best
 * candidates into `knowledge__context` within its budget, each block with provenance. Without
 * an embedder the scores are lexical (see docs/retrieval.md).
 * @example
 * const retrieval = createUnifiedRetrievalSource({ memory: store.view(), knowledgeBases: [kb] });
 * await compileContext(request, { counter, window: 128_000, sources: [retrieval] });
 */
export function createUnifiedRetrievalSource(options: UnifiedRetrievalSourceOptions): ContextSource {
  const name = options.name ?? 'retrieval';
  const layer = options.layer ?? 'knowledge__context';
  const excludeHistory = options.excludeHistory ?? true;
  // One reranker for every call, so its analysed-passage cache survives between compiles.
  const reranker = options.reranker ?? createReranker();
  return {
    name,
    layer,
    priority: options.priority ?? 0.6,
    async collect(request, budget) {
      const sources: Array<RecallSource | RecallSourceConfig> = [];
      if (options.memory !== undefined) {
        const memory = options.memory.recallSource({ messageRange: options.messageRange ?? 0 });
        const sent = new Set(excludeHistory ? request.history.map((message) => message.id) : []);
        sources.push({
          source: {
            name: memory.name,
            recall: async (recall) => {
              // Ask for extra so hits already in the history do not starve the recall.
              const candidates = await memory.recall({ ...recall, limit: recall.limit + sent.size });
              return candidates
                .filter((candidate) => !sent.has(String(candidate.metadata.messageId)))
                .slice(0, recall.limit);
            },
          },
          ...(options.memoryMinScore === undefined ? {} : { minScore: options.memoryMinScore }),
        });
      }
      sources.push(...(options.knowledgeBases ?? []));
      const retriever = createRetriever({
        sources,
        ...(options.recallLimit === undefined ? {} : { recallLimit: options.recallLimit }),
        reranker,
        ...(options.rewrite === undefined ? {} : { rewrite: options.rewrite }),
      });
      const result = await retriever.retrieve({
        query: request.query,
        history: request.history,
        maxTokens: budget.maxTokens,
        counter: request.counter,
        layer,
        sourceName: name,
        ...(request.signal === undefined ? {} : { signal: request.signal }),
      });
      return result.blocks;
    },
  };
}
