import type { LanguageModel, ToolSet, UIMessageChunk } from 'ai';
import type { CompressScope, RequirementProposer } from '../compression/index.ts';
import type { CompiledContext, CtxloomError, Message, Summarizer, TokenCounter } from '../core/index.ts';
import type { Embedder } from '../retrieval/index.ts';
import type { InvokableGraph } from '../runtime/index.ts';
import type { CurationEvent, PlaceholderLocale, SessionLayers, Workspace } from '../workspace/index.ts';
import type { CompileSessionOptions, SessionCompile } from './compile-session.ts';
import type { CompressSessionResult } from './compress-session.ts';
import type { CallRecord, ListCallsOptions, SessionStore } from './session-store.ts';
import type { CallTracer } from './trace-calls.ts';

/** The model a session engine calls. */
export interface EngineModel {
  model: LanguageModel;
  /** The spec it was resolved from, e.g. `offline` or `openai:gpt-4o-mini` (shown in reports and the call log). */
  spec: string;
  /** True for the built-in offline model. */
  offline: boolean;
}

/**
 * A LangGraph process (`ctxloom/runtime`: sequential, dynamic, …) that runs a session's
 * turns: route → agent nodes → persist, in the session's thread. Build it over the checkpoint
 * store's Blackboard and saver (`createDynamicProcess({ blackboard: store.blackboard, … })
 * .compile({ checkpointer: saver })`), so its agents read the session's curation, history
 * summary and structured state and log every call they send in the session's call log.
 */
export interface SessionProcess {
  /** The compiled graph; its checkpointer must be the store's saver. */
  graph: InvokableGraph;
  /** Namespace of the session identity the thread's first input writes. Default `ctxloom`. */
  namespace?: string;
  /** How long a turn waits while another process runs the thread (ms, 0..60 000). Default 0: `conflict`. */
  waitMs?: number;
  /**
   * The next call the process would send for `query` (compiled exactly as its agent node
   * compiles, nothing written), used for the token counts `/compress` reports. Optional:
   * which agent answers depends on the route, which only the process knows. `options` carries
   * what the session manifest decides of the call (the placeholder language of curated
   * history, for `compileAgentCall`'s `placeholderLocale`; the manifest's layers — prompts,
   * blocks, retrieval, budget, composition and `query` with its references merged — for its
   * `sessionLayers`: pass `query` as the agent's query so the preview sends what the turn will).
   */
  preview?: (
    sessionId: string,
    query?: string,
    options?: { placeholderLocale: PlaceholderLocale; layers?: SessionLayers },
  ) => Promise<CompiledContext>;
}

/** Default {@link SessionEngineOptions.modelTimeoutMs}: two minutes of silence. */
export const DEFAULT_MODEL_TIMEOUT_MS = 120_000;

/** What {@link SessionEngineOptions.onModelError} is told of a failed turn. */
export interface ModelErrorEvent {
  sessionId: string;
  /** Id of the turn's user message. */
  turnId: string;
  /** The `model-error` the turn stored (one-line `message`; the provider's error as `cause`). */
  error: CtxloomError;
}

/** Options of {@link createSessionEngine}. */
export interface SessionEngineOptions {
  workspace: Workspace;
  /** Where messages, curation, compression and the call log live. */
  store: SessionStore;
  /** The model turns call; optional for compile-only use (preview, CLI compile, MCP). */
  model?: EngineModel;
  /**
   * Runs every turn through this process instead of one model loop (`store` must be the
   * checkpoint session store the process is built over). Commands (`/compress`), curation,
   * the call log and persistence stay the engine's. Decision record 036.
   */
  process?: SessionProcess;
  /** The tools a turn's model may call, per session. Default: none. */
  tools?: (sessionId: string) => ToolSet;
  /** Most model steps per turn (tool call + answer = 2), 1..50. Default 5. */
  maxSteps?: number;
  /**
   * Longest silence of the model, in ms (1..3 600 000): until the first output of each step
   * and between two outputs. A model silent for longer is stopped and the turn fails with
   * `model-error` (`details.reason: 'timeout'`). Default {@link DEFAULT_MODEL_TIMEOUT_MS}.
   */
  modelTimeoutMs?: number;
  /**
   * Called once for every turn whose model call failed (after the provider SDK's own
   * retries), with the typed error the turn stores and streams; `error.cause` is the
   * provider's full error. The engine itself logs nothing. Default: none.
   */
  onModelError?: (event: ModelErrorEvent) => void;
  /**
   * Where every model call of a turn becomes an OpenTelemetry span (`chat {model}`, with the
   * GenAI semantic-convention attributes and the call's report: `docs/telemetry.md`). An
   * `@opentelemetry/api` tracer (`trace.getTracer('my-app')`) fits as is. Default: the global
   * tracer of `@opentelemetry/api` when that optional peer is installed (a no-op until the
   * application registers a tracer provider); `false`: no spans.
   */
  tracer?: CallTracer | false;
  /**
   * The engine's one summariser, for automatic compaction and `/compress` alike (decision
   * 040). Default: the model's when `model` is a real one, else the extractive one.
   */
  summarizer?: Summarizer;
  /**
   * Embeds messages for a long session's recall (decision 040): its ranking is fused with the
   * lexical one (reciprocal rank). Default none: lexical recall only (BM25, CJK-aware).
   */
  embedder?: Embedder;
  /** Proposer of requirement ops for `/compress`; default the model's (or the offline heuristic with the offline model). */
  proposer?: RequirementProposer;
  /**
   * Counter for a session whose manifest names no model, counted through one shared token cache
   * (decision 078); default the o200k tokenizer.
   */
  counter?: TokenCounter;
  now?: () => Date;
  createId?: () => string;
}

/** Options of {@link SessionEngine.compress}. */
export interface CompressOptions {
  scope?: CompressScope;
  /** Recent messages left verbatim (0..1000). Default 4. */
  keepLast?: number;
  /** Most tokens of the summary (64..8000). Default 600. */
  maxTokens?: number;
  signal?: AbortSignal;
  /** The turn a model summariser's calls are logged under (the `/compress` message's id). */
  turnId?: string;
}

/** Result of {@link SessionEngine.compress}: what changed, and the context before and after. */
export interface CompressOutcome extends CompressSessionResult {
  /** Input tokens of the session's next call before and after (the preview's total). */
  tokensBefore: number;
  tokensAfter: number;
  /**
   * Set when nothing was kept: the compressed state would have made the next call larger
   * (`wouldBe` tokens) than it was, so the previous state stays (decision 040).
   */
  declined?: { wouldBe: number };
}

/** Input of {@link SessionEngine.curate}. */
export interface CurateInput {
  action: 'dismiss' | 'exclude' | 'restore';
  targetMessageIds: readonly string[];
  /** Why, shown in the placeholder (≤ 2,000 characters). */
  summary?: string;
  by?: 'user' | 'model';
  toolCallId?: string;
}

/**
 * The one engine every entry point runs a session through — the notebook's HTTP routes,
 * the CLI, the MCP server and library users: same input, same bytes.
 */
export interface SessionEngine {
  readonly store: SessionStore;
  /** Compiles the session's next call (the preview; no model call, nothing written). */
  compile(
    sessionId: string,
    options?: Pick<CompileSessionOptions, 'query' | 'queryId'>,
  ): Promise<SessionCompile>;
  /**
   * Runs one turn: a chat command (`/compress …`) or compile → model steps → persist.
   * Refuses bad input (`not-found`, `conflict`, `invalid-config`) before anything is stored;
   * the returned stream's `finish` comes only after the answer is stored.
   */
  runTurn(input: TurnInput): Promise<Turn>;
  /** `/compress`: summary with its coverage, requirement TODO and artifact index, in one write. */
  compress(sessionId: string, options?: CompressOptions): Promise<CompressOutcome>;
  /** Stores curation events for every id, or none (`not-found` names the unknown ids). */
  curate(sessionId: string, input: CurateInput): Promise<CurationEvent[]>;
  /** The session's logged calls, oldest first. */
  listCalls(sessionId: string, options?: ListCallsOptions): Promise<CallRecord[]>;
}

/** Input of {@link SessionEngine.runTurn}. */
export interface TurnInput {
  sessionId: string;
  /** The user's message; `/compress`, `/compress requirement`, `/compress artifacts` are commands. */
  text: string;
  /** Id of the user message (a client-side id makes retries idempotent: a stored id is a `conflict`). */
  messageId?: string;
  /** Aborts the model call; what arrived is stored, marked `partial`. */
  signal?: AbortSignal;
  /**
   * Runs the turn's own work — from when its session is held (another turn of the session has
   * stored its answer) until the model is called — e.g. in a server's compile limiter, so a turn
   * waiting for its session holds no slot. Default: runs it as it is.
   */
  slot?: <T>(work: () => Promise<T>) => Promise<T>;
}

/** A running turn. */
export interface Turn {
  /** The AI SDK UI message stream (`useChat` reads it as is). `finish` comes after the answer is stored. */
  stream: ReadableStream<UIMessageChunk>;
  /** The compile of the turn's model call; `undefined` for a command and for a process turn (its agents' calls are in the call log). */
  compiled: SessionCompile | undefined;
  /** The stored user message id. */
  userMessageId: string;
  /** The messages stored when the turn ends (assistant and tool messages), or the failure. */
  stored: Promise<Message[]>;
}
