import type { Message } from '../core/index.ts';
import type { RecallSource } from '../retrieval/recall-source.ts';
import type { MemoryEntry } from './memory-entry.ts';

/** The read side of a memory: what sub-agents (InheritedSource) and sources may use. */
export interface MemoryView {
  readonly agentId: string;
  readonly sessionId: string;
  /** L1: the latest `limit` entries (default the store's `recentLimit`), oldest first. */
  recent(options?: { limit?: number }): MemoryEntry[];
  /** L2: entries at or above the threshold, most important first (ties: newest first). */
  important(options?: { limit?: number }): MemoryEntry[];
  /** Every entry, oldest first. */
  entries(): MemoryEntry[];
  /** L4 as a recall source (conversation index over every entry). */
  recallSource(options?: { name?: string; messageRange?: number }): RecallSource;
}

/**
 * A per-agent, per-session long-term memory: SQLite (`openMemoryStore`) or PostgreSQL
 * (`createPostgresMemoryStore`). Reads are served from memory; writes return once stored.
 */
export interface MemoryStore extends MemoryView {
  /** Appends messages (an id already stored is ignored), scoring and indexing each. All or nothing. */
  append(messages: readonly Message[]): Promise<MemoryEntry[]>;
  /** Explicitly marks (importance 1) or unmarks (back to the scorer's score) an entry. */
  mark(id: string, important: boolean): Promise<void>;
  /** A read-only view (for a sub-agent). */
  view(): MemoryView;
  /** Releases the database (one the store did not open is left open). */
  close(): Promise<void>;
}
