import type { Provenance } from '../core/index.ts';

/**
 * One recalled passage before reranking (seed 001 `candidates.py`). Every recall source —
 * memory L4, a knowledge base, a custom one — produces these.
 */
export interface RetrievalCandidate {
  /** Unique within its origin (a turn id, a chunk id). */
  id: string;
  /** The recall source it came from, e.g. `memory` or a knowledge base's name. */
  origin: string;
  content: string;
  /**
   * Recall relevance in 0..1: cosine similarity for vector recall, or the lexical BM25 score
   * divided by the best score of the same query (so the top lexical hit is 1). Feeds
   * `VectorScoreSignal`.
   */
  vectorScore: number;
  /** Dedup key; `fingerprintContent(content)` unless the origin knows better. */
  fingerprint: string;
  /** Where the text lives (file and lines), when known. */
  provenance?: Provenance;
  /** Origin-specific data kept through to the block (turn id, role, timestamp, url…). */
  metadata: Record<string, unknown>;
}

/** A candidate after reranking: its final score and each signal's contribution. */
export interface RankedCandidate extends RetrievalCandidate {
  /** `Σ score·weight / Σ weight`, in 0..1. */
  finalScore: number;
  /** Signal name → raw score in 0..1 (before weighting), for the report and debugging. */
  signals: Record<string, number>;
}
