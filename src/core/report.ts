import type { Provenance } from './block.ts';
import type { DropReason } from './select.ts';
import type { TaskPhase } from './source.ts';
import type { TokenCacheStats } from './tokens.ts';

/** A block as the report shows it. */
export interface BlockSummary {
  id: string;
  source: string;
  tokens: number;
  priority: number;
  pinned?: boolean;
  /** Tokens before trimming, when the block was trimmed to fit. */
  trimmedFromTokens?: number;
  provenance?: Provenance;
  /** The first 120 characters, whitespace collapsed. */
  preview: string;
}

/** A dropped block and the reason. */
export interface DroppedSummary extends BlockSummary {
  reason: DropReason;
  /**
   * Set when this entry stands for several consecutive history messages dropped for the same
   * reason, or all behind a long session's cut ({@link DroppedRun.others}); past
   * `LISTED_HISTORY_DROPS` dropped history messages, a report lists that many one by one, then
   * runs, in the order the stages dropped them: how many, and the first and last id. `tokens`
   * is their sum; `id` is `<firstId>…<lastId>`.
   */
  run?: DroppedRun;
}

/** The messages a run entry of a report's dropped history stands for. */
export interface DroppedRun {
  count: number;
  firstId: string;
  lastId: string;
  /**
   * A run of a long session's covered history (behind its cut: `summarized`, `recallable`, or
   * `recalled` into another layer, decision 040) holds all three. `reason` is the one most of
   * its messages have; these are the others, by reason: their ids and tokens. `count` and the
   * entry's `tokens` include them. The summary carries lines and the recall picks messages
   * from all over the covered history: each named here instead of ending the run keeps the run
   * whole (decision 085).
   */
  others?: { reason: DropReason; ids: string[]; tokens: number }[];
}

/** How many blocks a layer's `dropped` stands for (a run counts its messages). */
export function droppedCount(layer: Pick<LayerReport, 'dropped'>): number {
  let count = 0;
  for (const block of layer.dropped) count += block.run?.count ?? 1;
  return count;
}

/** A layer's dropped blocks of one reason: how many and their tokens. */
export interface DroppedTally {
  reason: DropReason;
  count: number;
  tokens: number;
}

/**
 * What a layer's `dropped` says of its blocks, by reason (reasons equal by value are one entry,
 * in the order first met): a run's messages counted under their own reasons (`run.others`).
 */
export function droppedByReason(layer: Pick<LayerReport, 'dropped'>): DroppedTally[] {
  const tallies = new Map<string, DroppedTally>();
  const add = (reason: DropReason, count: number, tokens: number) => {
    const key = JSON.stringify(reason);
    const tally = tallies.get(key);
    if (tally === undefined) tallies.set(key, { reason, count, tokens });
    else {
      tally.count += count;
      tally.tokens += tokens;
    }
  };
  for (const block of layer.dropped) {
    const others = block.run?.others ?? [];
    let count = block.run?.count ?? 1;
    let tokens = block.tokens;
    for (const group of others) {
      count -= group.ids.length;
      tokens -= group.tokens;
    }
    if (count > 0) add(block.reason, count, tokens);
    for (const group of others) add(group.reason, group.ids.length, group.tokens);
  }
  return [...tallies.values()];
}

/** One layer of the compiled input. */
export interface LayerReport {
  layer: string;
  kind: 'system' | 'context' | 'history' | 'query';
  /** Tokens of this layer's message(s) as emitted, per-message overhead included. */
  tokens: number;
  /** The share of the layer's sources in the budget, and what they drew from the pool. */
  grantTokens?: number;
  kept: BlockSummary[];
  dropped: DroppedSummary[];
}

/** One source's part in the compile. */
export interface SourceReport {
  name: string;
  layer: string;
  priority: number;
  allocatedTokens: number;
  returnedBlocks: number;
  returnedTokens: number;
  keptBlocks: number;
  keptTokens: number;
  /** `share-disabled` when the share switch left its layer out. */
  skipped?: 'share-disabled';
  /** Message of a failure inside the source's `collect`. */
  error?: string;
}

/** What compaction did. */
export type CompactionAction =
  | {
      type: 'trimmed';
      blockId: string;
      layer: string;
      fromTokens: number;
      toTokens: number;
      boundary: string;
    }
  | { type: 'summarized'; summarizer: string; messages: number; fromTokens: number; summaryTokens: number }
  | { type: 'omitted-notice'; messages: number; tokens: number; errors: number }
  | { type: 'retry'; overshootTokens: number }
  | {
      /** A tool output replaced by a placeholder naming an artifact handle. */
      type: 'placeholder';
      blockId: string;
      toolName: string;
      handle: string;
      fromTokens: number;
      toTokens: number;
      /**
       * `page-shrunk`: an `open_artifact` page cut to fit the call, or left as a stub naming its
       * range. `no-room`: an output of the current turn that the call could not keep beside the
       * turn's newer outputs (read by pages instead of dropped).
       */
      reason: 'oversized' | 'earlier-turn' | 'page-shrunk' | 'no-room';
    }
  | {
      /**
       * History dropped up to a chunk boundary, so the kept prefix changes rarely (prompt
       * caches); with a stored cut (`historyCut`), up to the turn start the cut moved to
       * (`chunkTokens` 0: the boundary leaves `historyKeepRatio` of the room, not a chunk).
       */
      type: 'chunked';
      messages: number;
      tokens: number;
      chunkTokens: number;
    }
  | {
      /**
       * A long session's cut moved forward before this call (decision 040): `messages` passed
       * it and were rolled into the summary (now `summaryTokens`); `trigger` says why.
       */
      type: 'compacted';
      trigger: 'soft-limit' | 'overflow' | 'command';
      messages: number;
      throughMessageId: string;
      summaryTokens: number;
      summarizer: string;
      /**
       * Of the `covered` messages before the cut, how many the summary's text carries (a
       * per-message summariser keeps its most informative lines; a model's summary stands for
       * its whole run). Absent in records written before 2026-12-03.
       */
      carried?: number;
      /** Messages before the cut that the summary's periods span. */
      covered?: number;
    }
  | {
      /** The configured summariser threw; the extractive one stood in. */
      type: 'summarizer-failed';
      summarizer: string;
      error: string;
      fallback: string;
    };

/**
 * Warnings of one kind a report lists one by one; past this many, one more says how many others
 * there are (a history of thousands of odd messages would otherwise put a warning per message
 * in every report and call record).
 */
export const LISTED_WARNINGS = 20;

/** Something the caller should know about its input (the compile went on). */
export interface CompileWarning {
  /**
   * `query-repeated`: the history ended with the query's content under another id (sent
   * once). `query-id-taken`: a message query reused the id of an earlier history message,
   * which stays; the query was sent under a fresh id `<id>:<n>`. `message-id-reserved`: a
   * history, step or query message has an id of the `layer:` namespace (`isReservedMessageId`);
   * it keeps it, and a layer message of that id is sent under a fresh id `<id>:<n>`.
   * `summary-end-not-found`: `compression.throughMessageId` is in neither the history nor the
   * steps, so the summary covers none of them and every message is a candidate (expected when
   * the caller's history starts after the summary's end; else a wrong id sends twice what the
   * summary says). `tool-call-unanswered`: a tool call of the history or the steps that no
   * later result answers; `tool-result-orphaned`: a tool result whose call no earlier message
   * makes — requests every provider refuses, sent as they are (decision 087).
   */
  code:
    | 'query-repeated'
    | 'query-id-taken'
    | 'message-id-reserved'
    | 'summary-end-not-found'
    | 'tool-call-unanswered'
    | 'tool-result-orphaned';
  message: string;
  /** The message concerned (`summary-end-not-found`: the id that was not found). */
  messageId?: string;
}

/** One emitted message as sent: for call logs, diffs and prompt-cache accounting. */
export interface MessageFingerprint {
  id: string;
  layer: string;
  role: string;
  tokens: number;
  /** Hash of role and content: equal hashes at equal positions mean an identical prefix. */
  hash: string;
  /** True when an emitter should put a prompt-cache breakpoint after this message. */
  breakpoint?: boolean;
}

/** One tool definition sent with a call and its tokens (as `countToolDefinitions` counts it). */
export interface ToolTokens {
  name: string;
  tokens: number;
}

/**
 * Everything about one compile: the window, the reserve, the exact total of what is sent,
 * and per layer what was kept, dropped (with reasons) or trimmed. The context preview, the
 * CLI and the chat stream all show this object; nothing estimates separately.
 */
export interface CompileReport {
  /** Counter name, e.g. `o200k_base`. */
  counter: string;
  /** False when the counter is an estimator. */
  exact: boolean;
  window: number;
  outputReserve: number;
  /** `window − outputReserve`. */
  inputBudget: number;
  /** Exact tokens of the emitted messages, request overhead included. */
  totalTokens: number;
  /** Request-level overhead in `totalTokens` not attributed to a layer. */
  overheadTokens: number;
  /** True when `totalTokens ≤ inputBudget`. */
  fits: boolean;
  /** `max(0, totalTokens − inputBudget)`; > 0 only when never-compacted layers alone overflow. */
  overflowTokens: number;
  phase?: TaskPhase;
  shareContext: boolean;
  /**
   * The composition order the call was sent in: `cache-friendly` (volatile layers after the
   * history, decision 021) or `default` (seed 000's: every context layer before the history).
   * Absent in reports logged before it was recorded.
   */
  order?: 'default' | 'cache-friendly';
  layers: LayerReport[];
  sources: SourceReport[];
  compaction: CompactionAction[];
  cache?: TokenCacheStats;
  /**
   * Tool definitions sent with the call (their JSON schemas count against the budget):
   * `tokens` is in `totalTokens`, `definitions` splits it per tool (absent in reports logged
   * before it existed).
   */
  tools?: { count: number; tokens: number; names: string[]; definitions?: ToolTokens[] };
  /** The emitted messages in order, with their cost and a content hash. */
  messages?: MessageFingerprint[];
  warnings?: CompileWarning[];
}
