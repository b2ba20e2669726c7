import type { Message, TokenCounter } from '../../src/core/index.ts';
import type { Embedder } from '../../src/retrieval/embedder.ts';
import { createRetriever } from '../../src/retrieval/retriever.ts';
import { createVectorIndex } from '../../src/retrieval/vector-index.ts';
import { openMemoryStore } from '../../src/sources/memory-store.ts';
import { createCharCounter } from '../../src/testing/index.ts';
import type { EvalDocument } from './datasets.ts';
import type { Engine } from './peers.ts';

const rankingCounter = createCharCounter();

/**
 * ctxloom hybrid on a conversation, through the product path: a memory store with an
 * embedder (L4 = conversation index, `indexContext` 1, plus the turns' vectors; recall is the
 * union of both top-k with `vectorScore = (normalised BM25 + max(cosine, 0)) / 2`) → the
 * unified retriever with the seed reranker.
 */
export function ctxloomHybridEngine(options: { embedder: Embedder; recallLimit: number }): Engine {
  return {
    name: 'ctxloom-hybrid',
    settings: `memory store L4 with embedder ${options.embedder.name} (defaults: indexContext 1, union of lexical and cosine top recallLimit, vectorScore = (BM25/best + max(cos,0))/2), recallLimit ${options.recallLimit}, seed reranker`,
    build(documents) {
      const memory = openMemoryStore({ agentId: 'bench', sessionId: 'locomo', embedder: options.embedder });
      const stored = memory.append(documents.map(toMessage));
      const retriever = createRetriever({
        sources: [memory.recallSource()],
        recallLimit: options.recallLimit,
      });
      return {
        async search(query, limit) {
          await stored;
          const result = await retriever.retrieve({ query, maxTokens: 0, counter: rankingCounter });
          return result.ranked.slice(0, limit).map((candidate) => candidate.id);
        },
      };
    },
  };
}

/** Ablation: cosine alone over the turns' vectors (no BM25, no reranker). */
export function vectorOnlyEngine(embedder: Embedder): Engine {
  return {
    name: 'vector-only',
    settings: `ablation: exact cosine over ${embedder.name} vectors of the bare turns`,
    build(documents) {
      const index = createVectorIndex({ dimensions: embedder.dimensions });
      const ready = embedder.embed(documents.map((document) => document.text)).then((vectors) => {
        for (const [position, vector] of vectors.entries())
          index.add((documents[position] as EvalDocument).id, vector);
      });
      return {
        async search(query, limit) {
          await ready;
          const [vector] = await embedder.embed([query]);
          return vector === undefined ? [] : index.search(vector, { limit }).map((hit) => hit.id);
        },
      };
    },
  };
}

// A LoCoMo turn `Speaker: text` as the message a memory store would hold; its entry text
// (`name: content`) is the same string the lexical engines index.
function toMessage(document: EvalDocument): Message {
  const colon = document.text.indexOf(': ');
  return {
    id: document.id,
    role: 'user',
    name: document.text.slice(0, colon),
    content: document.text.slice(colon + 2),
  };
}

/** Used by the suite to pre-embed and time a corpus. */
export async function timeEmbedding(
  embedder: Embedder,
  texts: readonly string[],
  counter: TokenCounter,
): Promise<{ ms: number; texts: number; tokens: number }> {
  const started = performance.now();
  await embedder.embed(texts);
  const tokens = texts.reduce((sum, text) => sum + counter.countText(text), 0);
  return { ms: performance.now() - started, texts: texts.length, tokens };
}
