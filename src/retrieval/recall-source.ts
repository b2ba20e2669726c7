import type { RetrievalCandidate } from './candidate.ts';

/** What a recall source is asked for. */
export interface RecallRequest {
  /** The (rewritten) query. */
  query: string;
  /** Most candidates to return (the source's `recallLimit`). */
  limit: number;
  signal?: AbortSignal;
}

/**
 * One place candidates are recalled from (seed 001: memory L4, a RAG knowledge base). The
 * unified retriever asks every source in parallel and reranks the union.
 */
export interface RecallSource {
  /** Unique; becomes the candidates' `origin`. */
  readonly name: string;
  recall(request: RecallRequest): Promise<RetrievalCandidate[]>;
}
