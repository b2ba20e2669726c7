// Files, not the index: the index re-exports the AI SDK parts, and `ai`'s dependencies publish
// a `source` export condition with raw .ts that Node refuses to strip under --conditions=source.
import { type CjkMode, createAnalyzer } from '../../src/retrieval/analyzer.ts';
import { createBm25Index } from '../../src/retrieval/bm25-index.ts';
import { createConversationIndex } from '../../src/retrieval/conversation-index.ts';
import type { Embedder } from '../../src/retrieval/embedder.ts';
import { createKnowledgeBase } from '../../src/retrieval/knowledge-base.ts';
import { createRetriever } from '../../src/retrieval/retriever.ts';
import { createCharCounter } from '../../src/testing/index.ts';
import type { Engine } from './peers.ts';

const rankingCounter = createCharCounter();

/** What {@link ctxloomConversationEngine} builds with: this checkout's modules, or another's (`bench/ab.ts`). */
export interface ConversationModules {
  createConversationIndex: typeof createConversationIndex;
  createRetriever: typeof createRetriever;
}

/**
 * ctxloom on a conversation: memory L4 conversation index (each turn indexed with
 * `indexContext` neighbours) → unified retriever (rewriter has no history here, recall,
 * seed reranker). `recallLimit` is the retriever's per-source limit.
 */
export function ctxloomConversationEngine(
  options: {
    indexContext: number;
    recallLimit: number;
    label?: string;
  },
  modules: ConversationModules = { createConversationIndex, createRetriever },
): Engine {
  return {
    name: options.label ?? 'ctxloom',
    settings: `defaults: analyzer (NFKC, stopwords-iso en+zh, Porter stemming, CJK uni+bigrams), BM25 k1 1.2 b 0.75, conversation index indexContext ${options.indexContext}, recallLimit ${options.recallLimit}, seed reranker .40/.35/.15/.10`,
    build(documents) {
      const index = modules.createConversationIndex({ indexContext: options.indexContext });
      index.append(documents);
      const retriever = modules.createRetriever({ sources: [index], recallLimit: options.recallLimit });
      return {
        async search(query, limit) {
          const result = await retriever.retrieve({ query, maxTokens: 0, counter: rankingCounter });
          return result.ranked.slice(0, limit).map((candidate) => candidate.id);
        },
      };
    },
  };
}

/**
 * ctxloom on documents (CMRC paragraphs): a knowledge base → unified retriever, default
 * settings; with `embedder`, the knowledge base is hybrid (union of BM25 and cosine top 20).
 */
export function ctxloomKnowledgeEngine(
  options: { cjk?: CjkMode; label?: string; embedder?: Embedder } = {},
): Engine {
  const recall =
    options.embedder === undefined
      ? 'BM25, recallLimit 20'
      : `embedder ${options.embedder.name} (union of BM25 and cosine top 20)`;
  return {
    name: options.label ?? 'ctxloom',
    settings: `defaults (no language option)${options.cjk === undefined ? '' : `, cjk ${options.cjk}`}: knowledge base, ${recall}, seed reranker`,
    build(documents) {
      const kb = createKnowledgeBase({
        name: 'kb',
        ...(options.cjk === undefined ? {} : { analyzer: createAnalyzer({ cjk: options.cjk }) }),
        ...(options.embedder === undefined ? {} : { embedder: options.embedder }),
      });
      const ready = kb.add(documents);
      const retriever = createRetriever({ sources: [kb] });
      return {
        async search(query, limit) {
          await ready;
          const result = await retriever.retrieve({ query, maxTokens: 0, counter: rankingCounter });
          return result.ranked.slice(0, limit).map((candidate) => candidate.id);
        },
      };
    },
  };
}

/**
 * The pipeline's first stage alone: the conversation index's recall (BM25 over each turn with
 * its neighbours, top `limit` candidates with content and fingerprint), no rerank or inject.
 */
export function ctxloomRecallEngine(options: { indexContext: number }): Engine {
  return {
    name: 'ctxloom-recall',
    settings: `first stage alone: conversation index indexContext ${options.indexContext}, recall() top k candidates, no rewrite/rerank/inject`,
    build(documents) {
      const index = createConversationIndex({ indexContext: options.indexContext });
      index.append(documents);
      return {
        async search(query, limit) {
          return (await index.recall({ query, limit })).map((candidate) => candidate.id);
        },
      };
    },
  };
}

/** Ablation: the BM25 index alone (no neighbour context, no reranker). */
export function ctxloomBm25Engine(): Engine {
  return {
    name: 'ctxloom-bm25-only',
    settings: 'ablation: BM25 over the bare turns, no reranker',
    build(documents) {
      const index = createBm25Index();
      for (const document of documents) index.add(document.id, document.text);
      return { search: (query, limit) => index.search(query, { limit }).map((hit) => hit.id) };
    },
  };
}
