import {
  type ArtifactHandleStore,
  CtxloomError,
  type Message,
  type Summarizer,
  type TokenCounter,
} from '../core/index.ts';
import { getTokenCounter } from '../tokenizers/index.ts';
import {
  type ContextConfig,
  DEFAULT_MODEL,
  emitWorkspaceContext,
  loadSession,
  type SessionLayers,
  sessionLayers,
  type Workspace,
} from '../workspace/index.ts';
import { type AgentHistory, createAgentHistory } from './agent-history-layer.ts';
import type { HistoryHit } from './chat-tools.ts';
import type { CheckpointSessionStore } from './checkpoint-session-store.ts';
import type { SessionCompile } from './compile-session.ts';
import { longSessionSettings } from './long-session-settings.ts';
import type { ProcessTurnContext } from './run-process-turn.ts';
import type { SessionProcess } from './session-engine.ts';
import type { SessionIndexes } from './session-recall.ts';
import type { SessionState, SessionStore } from './session-store.ts';

/** What a process session's calls take from the engine that runs them. */
export interface ProcessCallsContext {
  workspace: Workspace;
  store: SessionStore;
  process: SessionProcess;
  /** The engine's counter, if it has one (else the manifest model's tokenizer). */
  counter: TokenCounter | undefined;
  summarizerFor: (counter: TokenCounter) => Summarizer;
  indexes: SessionIndexes;
  now: () => Date;
  createId: () => string;
  searchHistory: (
    sessionId: string,
    query: string,
    limit: number,
    store: ArtifactHandleStore,
    steps: readonly Message[],
  ) => Promise<HistoryHit[]>;
  /** Throws `not-found` when the session has no folder. */
  requireFolder: (sessionId: string) => Promise<void>;
}

/** A process session's two entries into the engine: its preview and a turn's context. */
export interface ProcessCalls {
  /**
   * The preview of a process session: the call the process's `preview` says comes next (its
   * current agent's, compiled as the agent node compiles it), with the session's manifest and
   * state. Without a `preview` there is no one next call: `invalid-config`.
   */
  compile(sessionId: string, query: string | undefined): Promise<SessionCompile>;
  /**
   * What a process turn takes from the session's manifest: the placeholder language and the
   * layers — prompts, blocks, retrieval, budget, composition and the turn's user message (id
   * `userMessageId`) with its references merged. A reference that cannot be resolved refuses
   * the turn here (`invalid-reference`), before anything is stored, as in a chat turn.
   */
  turnContext(sessionId: string, text: string, userMessageId: string): Promise<ProcessTurnContext>;
}

/** The calls of a process session run by the engine (decisions 053, 062, 066). */
export function createProcessCalls(context: ProcessCallsContext): ProcessCalls {
  const checkpoints = checkpointStoreOf(context.store);

  /**
   * The session's manifest layers for one call, with a long session's agent history (decision
   * 066): stored after the run for a turn (`turnId`), in memory for a preview.
   */
  async function manifestLayers(
    sessionId: string,
    state: SessionState,
    query: string | undefined,
    turnId: string | undefined,
  ): Promise<{ config: ContextConfig; layers: SessionLayers; history: AgentHistory | undefined }> {
    const loaded = await loadSession({
      workspace: context.workspace,
      sessionId,
      ...(query === undefined ? {} : { query }),
      record: { messages: state.messages, curation: state.curation },
    });
    // The session's counter: the engine's, else the manifest model's tokenizer (as the chat compile counts).
    const counter = context.counter ?? getTokenCounter(loaded.config.budget.model ?? DEFAULT_MODEL);
    const layers = sessionLayers(loaded, {
      counter,
      ...(query === undefined ? {} : { query }),
      ...(turnId === undefined ? {} : { queryId: turnId }),
    });
    const history = agentHistoryOf(sessionId, loaded.config, counter, turnId);
    return {
      config: loaded.config,
      layers: history === undefined ? layers : { ...layers, history: history.layer },
      history,
    };
  }

  /** A long session's history for a process's agent calls; `undefined` under `last-n`, whose window is a choice. */
  function agentHistoryOf(
    sessionId: string,
    config: ContextConfig,
    counter: TokenCounter,
    turnId: string | undefined,
  ): AgentHistory | undefined {
    const settings = longSessionSettings(config);
    if (settings === undefined) return undefined;
    return createAgentHistory({
      store: context.store,
      sessionId,
      config,
      settings,
      counter,
      summarizer: context.summarizerFor(counter),
      indexes: context.indexes,
      ...(turnId === undefined ? {} : { turnId }),
      persist: turnId !== undefined,
      now: context.now,
      createId: context.createId,
      searchHistory: (query, limit, store, steps) =>
        context.searchHistory(sessionId, query, limit, store, steps),
    });
  }

  return {
    async compile(sessionId, query) {
      const preview = context.process.preview;
      if (preview === undefined) {
        throw new CtxloomError({
          code: 'invalid-config',
          message: `session "${sessionId}" runs on a process without a preview: which agent answers next depends on the route; its calls are in the call log`,
          path: 'process.preview',
        });
      }
      await context.requireFolder(sessionId);
      const state = await context.store.load(sessionId);
      const { config, layers } = await manifestLayers(sessionId, state, query, undefined);
      const compiled = await preview(sessionId, query, {
        placeholderLocale: config.chatHistory.placeholderLocale,
        layers,
      });
      // The references the call carries: the agent sent the turn's message with them merged.
      const sent = [...compiled.history, ...(compiled.query === undefined ? [] : [compiled.query])];
      const carried =
        layers.query !== undefined &&
        layers.query.references.length > 0 &&
        sent.some((message) => message.role === 'user' && message.content === layers.query?.content);
      return {
        ...emitWorkspaceContext(compiled),
        compiled,
        references: carried ? (layers.query?.references ?? []) : [],
        queryMessage: undefined,
        warnings: layers.warnings,
        config,
        // The process's agents offer their own tools per call (they are in each call's report).
        tools: [],
        state,
      };
    },
    async turnContext(sessionId, text, userMessageId) {
      const state = await checkpoints.load(sessionId);
      const { config, layers, history } = await manifestLayers(sessionId, state, text, userMessageId);
      return {
        process: context.process,
        store: checkpoints,
        createId: context.createId,
        placeholderLocale: config.chatHistory.placeholderLocale,
        layers,
        ...(history === undefined ? {} : { history }),
      };
    },
  };
}

/** The checkpoint session store a process runs on; any other store is `invalid-config`. */
function checkpointStoreOf(store: SessionStore): CheckpointSessionStore {
  const candidate = store as Partial<CheckpointSessionStore>;
  if (candidate.blackboard === undefined || typeof candidate.exclusive !== 'function') {
    throw new CtxloomError({
      code: 'invalid-config',
      message: `a session process runs on the checkpoint session store it is built over (createCheckpointSessionStore), not on the "${store.kind}" store`,
      path: 'store',
    });
  }
  return store as CheckpointSessionStore;
}
