import type { ContextBlock } from './block.ts';
import type { BudgetManager } from './budget.ts';
import type { ComposePolicy } from './compose.ts';
import type { HistoryCutStore } from './history-cut.ts';
import type { ContextKey, LayerRegistry } from './layers.ts';
import type { Message } from './message.ts';
import type { CompactionAction, CompileReport } from './report.ts';
import type { DroppedBlock } from './select.ts';
import type { ContextSource, TaskPhase } from './source.ts';
import type { CompressionSummary, Summarizer } from './summarizer.ts';
import type { TokenCounter } from './tokens.ts';
import type { ToolDefinition } from './tool-definitions.ts';
import type { ToolResultPolicy } from './tool-result-placeholders.ts';

/** One call's inputs. Everything is plain data; nothing here is agent state. */
export interface CompileRequest {
  /** The agent's private system prompt (layer `system`). */
  systemPrompt?: string;
  /** Pre-rendered layers, e.g. `{ todo__context: '…' }`; each becomes one block. */
  contexts?: Partial<Record<ContextKey, string>>;
  /** Pre-made blocks for any registered layer (profile blocks, references, …). */
  blocks?: readonly ContextBlock[];
  /**
   * The checkpoint messages, oldest first. An id starting with `layer:` is the layer messages'
   * own (`isReservedMessageId`): the message keeps it, and the layer it would repeat is sent
   * under a free `<id>:<n>` (warned `message-id-reserved`), so no two messages share an id.
   */
  history?: readonly Message[];
  /**
   * The current input: a string, or a user message (any other role is `invalid-argument` at
   * `query.role` — a model's or a tool's message goes in `history` or `steps`). It enters once, by id and by content: a history ending with it (the
   * same id, or — for any form of query — a user message of the same content) is not
   * repeated (a repeat under another id is warned `query-repeated`). A string gets the id
   * `query:<hash of its text>`. No id collision removes an earlier message: when the query's
   * id is taken by an earlier history message (a second "yes"), that message stays and the
   * query is sent as `<id>:<n>` (a message query's reuse is warned `query-id-taken`).
   */
  query?: Message | string;
  /**
   * What the tool loop produced after the query in this turn (assistant tool calls, tool
   * results), oldest first. They join the history as blocks placed after the query — a call
   * and its results are one group — and are compiled under the same budget.
   */
  steps?: readonly Message[];
  /**
   * The persisted summary from `compression__context`, and the newest message it covers (a
   * long session's cut, decision 040). Covered messages — and the tool results right after the
   * newest one, whose calls it covers — are not sent; each is reported
   * `recalled` when a kept block names it (`metadata.messageId`), `recallable` (via
   * `recallTool`) when its id is in `uncarried` (no summary text that is sent carries it),
   * else `summarized`. `actions` are what the caller's compaction did before this call.
   * A `throughMessageId` in neither `history` nor `steps` covers nothing and is warned
   * `summary-end-not-found` (not an error: a caller's history may start after it).
   */
  compression?: {
    summary: string;
    throughMessageId?: string;
    uncarried?: ReadonlySet<string>;
    recallTool?: string;
    actions?: readonly CompactionAction[];
  };
  /** `early`, `mid` or `late`: passed to the budget manager and the sources. */
  phase?: TaskPhase;
  /** 0..1 (else `invalid-argument`); the adaptive budget derives the phase from it when `phase` is absent. */
  progress?: number;
  /** Passed to sources as `CollectRequest.metadata`. */
  metadata?: Record<string, unknown>;
  signal?: AbortSignal;
}

/** How to compile. */
export interface CompileOptions {
  /** Counts every block and the emitted messages. Pass a cached counter for fast recompiles. */
  counter: TokenCounter;
  /** The model's context window in tokens; required unless `budgetManager` is given. */
  window?: number;
  /** Share of the window reserved for output, default 0.25. */
  outputReserveRatio?: number;
  /** Share of the available tokens per source name (see `createBudgetManager`). */
  allocationRatios?: Record<string, number>;
  /** Overrides `window`, `outputReserveRatio` and `allocationRatios`. */
  budgetManager?: BudgetManager;
  /**
   * Most input tokens, below `window − reserve` (clipping, e.g. to a soft compression limit).
   * What it leaves out is dropped in the report like any over-budget block. Default: no cap.
   */
  maxInputTokens?: number;
  /**
   * The history window: at most this many of the newest `history` messages are sent (the
   * query and the tool loop's `steps` do not count). Older messages are dropped with reason
   * `history-window`, on every step of a turn alike; the window never starts on a tool result
   * whose call is older (it moves forward past it). Messages the stored summary covers are
   * reported `summarized` wherever they sit. What falls out of the window is not summarised
   * (it left on purpose). Integer ≥ 0; default: no window.
   */
  maxHistoryMessages?: number;
  sources?: readonly ContextSource[];
  layers?: LayerRegistry;
  /** The single switch for shared `__context` layers (seed 000). Default true. */
  enableShareContext?: boolean;
  /**
   * Composition policy (merge, order, always-included layers). The order defaults to
   * `cache-friendly` (volatile layers after the history, so prompt caches keep hitting).
   */
  policy?: Omit<ComposePolicy, 'layers' | 'enableShareContext'>;
  /** Summarises history that no longer fits; without one, an omission notice is shown. */
  summarizer?: Summarizer;
  /** Most tokens a summary may take; an integer ≥ 0. Default 10% of the available tokens, within 64..2000. */
  summaryMaxTokens?: number;
  /** Receives a new summary so the state layer can persist it in `compression__context`. */
  onSummary?: (summary: CompressionSummary) => void | Promise<void>;
  /** Smallest remainder (tokens) worth trimming a block into; an integer ≥ 0. Default 24. */
  minTrimTokens?: number;
  /** Priority of the history when layers draw on unused budget, 0..1. Default 0.9. */
  historyPriority?: number;
  /** Tool definitions sent with the call: counted in the budget and reported. */
  tools?: readonly ToolDefinition[];
  /** Keep oversized and earlier-turn tool outputs as artifacts behind a placeholder. Off without it. */
  toolResults?: ToolResultPolicy;
  /**
   * When history must go, drop it up to the next boundary of chunks of this share of the
   * input budget (0..1), so the kept history (a prompt cache's prefix) changes rarely. Default 1/3;
   * 0 drops only what does not fit (the oldest message nearly every turn once the window is full).
   */
  historyChunkRatio?: number;
  /**
   * The conversation's stored cut (decision 040, stateless callers), in place of the chunked
   * cut: the history never starts before the stored message (what precedes it is dropped as
   * over-budget, summarised or noticed like any history that does not fit), and a call that
   * must cut further cuts at a turn start that leaves `historyKeepRatio` of the room, then
   * records where its history starts. Pass the same store for every call of a conversation
   * (the AI SDK hooks keep one per conversation). Default: none (the chunked cut).
   */
  historyCut?: HistoryCutStore;
  /**
   * With `historyCut`: the share of the room the history kept after a forward cut may take,
   * 0 < r ≤ 1; the rest is headroom the following calls fill before the next cut. Default 0.6.
   */
  historyKeepRatio?: number;
}

/** The result of a compile: the messages to send and the report of how they were chosen. */
export interface CompiledContext {
  /** Ordered messages; each carries `metadata.layer`. */
  messages: Message[];
  systemPrompt: string | undefined;
  /** The rendered `__context` layers that were sent. */
  contexts: Record<ContextKey, string>;
  /** The history messages that were sent before the query (trimmed ones replaced). */
  history: Message[];
  /** The tool-loop messages that were sent after the query. */
  steps: Message[];
  /** The query as sent: the history's stored copy when it ended with it, or under a fresh id when its id was taken. */
  query: Message | undefined;
  /** The output reserve: send it as the model's output limit (`maxOutputTokens`, `max_tokens`). */
  maxOutputTokens: number;
  report: CompileReport;
  kept: ContextBlock[];
  dropped: DroppedBlock[];
}
