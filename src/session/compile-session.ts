import { createCompressionSource } from '../compression/index.ts';
import type {
  ContextSource,
  Message,
  Summarizer,
  TokenCounter,
  ToolDefinition,
  ToolResultPolicy,
} from '../core/index.ts';
import { getTokenCounter } from '../tokenizers/index.ts';
import {
  DEFAULT_MODEL,
  loadSession,
  prepareLoadedSession,
  type Workspace,
  type WorkspaceContext,
} from '../workspace/index.ts';
import type { SessionState, SessionStore } from './session-store.ts';

/** Options of {@link compileSession}. */
export interface CompileSessionOptions {
  workspace: Workspace;
  store: SessionStore;
  sessionId: string;
  /** The user message being sent (default: the manifest's `query`). */
  query?: string;
  /** Id the query message gets (the stored user message id in a chat turn). */
  queryId?: string;
  /** Extra sources after the session's own (retrieval, compression views). */
  sources?: readonly ContextSource[];
  /** Summariser for history that does not fit; default the core omission notice. */
  summarizer?: Summarizer;
  /** Token counter; default the manifest's model tokenizer. */
  counter?: TokenCounter;
  /** The session state when the caller already loaded it. */
  state?: SessionState;
  /** Tool definitions the call offers (counted in the budget). */
  tools?: readonly ToolDefinition[];
  /** Where oversized and earlier-turn tool outputs go (placeholders naming artifact handles). */
  toolResults?: ToolResultPolicy;
}

/** What changes between the model calls of one turn: the tool loop's messages so far. */
export interface SessionStepOptions {
  /** The turn's messages after the query (tool calls and results), oldest first. */
  steps?: readonly Message[];
}

/** A session loaded once for the calls of one turn (see {@link prepareSessionCompile}). */
export interface PreparedSession {
  state: SessionState;
  /** Compiles one model call of the turn: the first with no steps, later ones with the loop's messages. */
  compile(step?: SessionStepOptions): Promise<SessionCompile>;
}

/** A compiled session: the workspace compile and the state it was compiled from. */
export interface SessionCompile extends WorkspaceContext {
  state: SessionState;
}

/**
 * The compile of one model call of a session — the only one: the notebook preview and chat,
 * `ctxloom compile`/`preview`, the MCP preview and library users all reach it through the
 * session engine. Reads the manifest and files through the session sandbox, and messages,
 * curation and compression through the {@link SessionStore}; the history summary enters
 * `compression__context` with its coverage (covered messages are reported `summarized`),
 * and seed 004's requirement TODO and artifact index enter `todo__context`.
 */
export async function compileSession(options: CompileSessionOptions): Promise<SessionCompile> {
  return (await prepareSessionCompile(options)).compile();
}

/**
 * Loads a session once — state, manifest and files — for every model call of a turn: each
 * {@link PreparedSession.compile} runs the same compile with the tool loop's messages so far,
 * so step n of a tool loop is compiled exactly like step 0 (same budget, tools counted).
 */
export async function prepareSessionCompile(options: CompileSessionOptions): Promise<PreparedSession> {
  const { workspace, store, sessionId } = options;
  const state = options.state ?? (await store.load(sessionId));
  const loaded = await loadSession({
    workspace,
    sessionId,
    ...(options.query === undefined ? {} : { query: options.query }),
    record: { messages: state.messages, curation: state.curation },
  });
  const counter = options.counter ?? getTokenCounter(loaded.config.budget.model ?? DEFAULT_MODEL);
  const structured = state.compression.structured;
  const sources: ContextSource[] = [
    ...(structured === null ? [] : [createCompressionSource({ load: () => structured })]),
    ...(options.sources ?? []),
  ];
  const summary = state.compression.summary;
  const prepared = prepareLoadedSession(loaded, {
    counter,
    sources,
    ...(options.summarizer === undefined ? {} : { summarizer: options.summarizer }),
    ...(options.queryId === undefined ? {} : { queryId: options.queryId }),
    ...(summary === null
      ? {}
      : { compression: { summary: summary.text, throughMessageId: summary.throughMessageId } }),
    ...(options.tools === undefined ? {} : { tools: options.tools }),
    ...(options.toolResults === undefined ? {} : { toolResults: options.toolResults }),
  });
  return {
    state,
    async compile(step = {}) {
      return { ...(await prepared.compile(step.steps)), state };
    },
  };
}
