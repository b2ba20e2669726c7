import { fingerprintContent } from '../core/fingerprint.ts';
import { CtxloomError, type Provenance } from '../core/index.ts';
import type { Analyzer } from './analyzer.ts';
import { assertKnowledgeDocuments } from './assert-knowledge-documents.ts';
import { type Bm25Index, createBm25Index, loadBm25Index, type SerializedBm25Index } from './bm25-index.ts';
import type { RetrievalCandidate } from './candidate.ts';
import type { Embedder } from './embedder.ts';
import type { RecallSource } from './recall-source.ts';
import {
  createVectorIndex,
  loadVectorIndex,
  type SerializedVectorIndex,
  type VectorIndex,
} from './vector-index.ts';

/** Format version of {@link KnowledgeBase.toJSON}. */
export const KNOWLEDGE_BASE_FORMAT_VERSION = 1;

/** One passage of a knowledge base (already chunked by the caller: a paragraph, a section). */
export interface KnowledgeDocument {
  id: string;
  text: string;
  provenance?: Provenance;
  metadata?: Record<string, unknown>;
}

/** Options of {@link createKnowledgeBase}. */
export interface KnowledgeBaseOptions {
  /** Unique name; the candidates' origin. */
  name: string;
  analyzer?: Analyzer;
  /** When given, recall is hybrid (see {@link createKnowledgeBase}); default lexical only. */
  embedder?: Embedder;
  /** Restores a saved base (from {@link KnowledgeBase.toJSON}). */
  saved?: SerializedKnowledgeBase;
}

/** Saved form of a knowledge base. */
export interface SerializedKnowledgeBase {
  version: typeof KNOWLEDGE_BASE_FORMAT_VERSION;
  name: string;
  documents: KnowledgeDocument[];
  lexical: SerializedBm25Index;
  vectors?: SerializedVectorIndex;
}

/** A searchable document collection (seed 001's `KnowledgeBaseProvider`), also a recall source. */
export interface KnowledgeBase extends RecallSource {
  readonly size: number;
  /**
   * Adds or replaces documents (embedding them first when an embedder is set). A document
   * without a non-empty string id or with a text that is not a string is `invalid-argument`
   * naming it (`documents.3.text`), and then none of the batch is added.
   */
  add(documents: readonly KnowledgeDocument[], options?: { signal?: AbortSignal }): Promise<void>;
  remove(id: string): boolean;
  toJSON(): SerializedKnowledgeBase;
}

/**
 * An in-memory knowledge base. Lexical recall is BM25 with `vectorScore = score / best score`.
 * With an embedder, recall is hybrid: the union of the lexical and the cosine top `limit`,
 * `vectorScore = (max(cosine, 0) + normalisedLexical) / 2` (a missing side counts 0).
 * @example
 * const kb = createKnowledgeBase({ name: 'docs' });
 * await kb.add([{ id: 'auth#1', text: 'Tokens expire after one hour.' }]);
 * await kb.recall({ query: 'token expiry', limit: 20 });
 */
export function createKnowledgeBase(options: KnowledgeBaseOptions): KnowledgeBase {
  const { name, embedder } = options;
  const documents = new Map<string, KnowledgeDocument>();
  let lexical: Bm25Index;
  let vectors: VectorIndex | undefined;
  if (options.saved !== undefined) {
    if (options.saved.version !== KNOWLEDGE_BASE_FORMAT_VERSION) {
      throw new CtxloomError({
        code: 'parse-error',
        message: 'unsupported knowledge base format',
        path: 'version',
      });
    }
    for (const document of options.saved.documents) documents.set(document.id, document);
    lexical = loadBm25Index(
      options.saved.lexical,
      options.analyzer === undefined ? {} : { analyzer: options.analyzer },
    );
    if (options.saved.vectors !== undefined) vectors = loadVectorIndex(options.saved.vectors);
  } else {
    lexical = createBm25Index(options.analyzer === undefined ? {} : { analyzer: options.analyzer });
  }
  if (embedder !== undefined && vectors === undefined)
    vectors = createVectorIndex({ dimensions: embedder.dimensions });

  return {
    name,
    get size() {
      return documents.size;
    },
    async add(added, addOptions = {}) {
      assertKnowledgeDocuments(added);
      const embeddings =
        embedder === undefined
          ? undefined
          : await embedder.embed(
              added.map((document) => document.text),
              addOptions.signal === undefined ? {} : { signal: addOptions.signal },
            );
      added.forEach((document, position) => {
        documents.set(document.id, document);
        lexical.add(document.id, document.text);
        const embedding = embeddings?.[position];
        if (embedding !== undefined) vectors?.add(document.id, embedding);
      });
    },
    remove(id) {
      vectors?.remove(id);
      lexical.remove(id);
      return documents.delete(id);
    },
    async recall(request) {
      const scores = new Map<string, number>();
      const lexicalHits = lexical.search(request.query, { limit: request.limit });
      const best = lexicalHits[0]?.score ?? 1;
      const half = embedder === undefined ? 1 : 0.5;
      for (const hit of lexicalHits) scores.set(hit.id, (half * hit.score) / best);
      if (embedder !== undefined && vectors !== undefined && request.query.trim().length > 0) {
        const [queryVector] = await embedder.embed(
          [request.query],
          request.signal === undefined ? {} : { signal: request.signal },
        );
        if (queryVector !== undefined) {
          for (const hit of vectors.search(queryVector, { limit: request.limit })) {
            scores.set(hit.id, (scores.get(hit.id) ?? 0) + half * Math.min(1, Math.max(0, hit.score)));
          }
        }
      }
      const candidates: RetrievalCandidate[] = [];
      for (const [id, score] of scores) {
        const document = documents.get(id);
        if (document === undefined) continue;
        const candidate: RetrievalCandidate = {
          id,
          origin: name,
          content: document.text,
          vectorScore: score,
          fingerprint: fingerprintContent(document.text),
          metadata: document.metadata ?? {},
        };
        if (document.provenance !== undefined) candidate.provenance = document.provenance;
        candidates.push(candidate);
      }
      candidates.sort((left, right) => right.vectorScore - left.vectorScore);
      return candidates.slice(0, request.limit);
    },
    toJSON() {
      const saved: SerializedKnowledgeBase = {
        version: KNOWLEDGE_BASE_FORMAT_VERSION,
        name,
        documents: [...documents.values()],
        lexical: lexical.toJSON(),
      };
      if (vectors !== undefined) saved.vectors = vectors.toJSON();
      return saved;
    },
  };
}
