import type { ContextBlock } from './block.ts';
import type { Message } from './message.ts';
import type { TokenCounter } from './tokens.ts';

/** Task phase used by the adaptive budget (seed 001): early favours retrieval, late memory. */
export type TaskPhase = 'early' | 'mid' | 'late';

/** What a source is asked for: the query, the conversation so far, and shared services. */
export interface CollectRequest {
  /** The user's current query text (references already resolved by the caller). */
  query: string;
  /** The conversation history, oldest first (read-only). */
  history: readonly Message[];
  /** Counter every source must use for `ContextBlock.tokens`. */
  counter: TokenCounter;
  phase?: TaskPhase;
  /** Cancels slow sources (retrieval, remote knowledge bases). */
  signal?: AbortSignal;
  /** Application data a custom source needs (agent id, session id, …). */
  metadata?: Record<string, unknown>;
}

/** The tokens a source may fill in this compile. */
export interface TokenBudget {
  /** The source's allocation in tokens; a source should return at most this much. */
  maxTokens: number;
  /** The source's name (what the allocation is keyed by). */
  source: string;
}

/**
 * A provider of context blocks for one layer (seed 001's `ContextSource`).
 * @example
 * const notes: ContextSource = {
 *   name: 'notes', layer: 'knowledge__context', priority: 0.6,
 *   async collect(request, budget) {
 *     return [createBlock({ id: 'n1', layer: 'knowledge__context', source: 'notes', content: '…' }, request.counter)];
 *   },
 * };
 */
export interface ContextSource {
  /** Unique; allocation ratios and the report use it. */
  readonly name: string;
  /** The layer every returned block fills. */
  readonly layer: string;
  /** 0..1; higher-priority sources receive unused budget first. */
  readonly priority: number;
  collect(request: CollectRequest, budget: TokenBudget): Promise<ContextBlock[]>;
}
