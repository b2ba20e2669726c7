import { createCompressionSource } from '../compression/index.ts';
import { conversationMessages } from '../core/conversation-messages.ts';
import type {
  CompactionAction,
  CompileRequest,
  ContextSource,
  Message,
  Summarizer,
  SummaryPeriod,
  TokenCounter,
  ToolDefinition,
  ToolResultPolicy,
} from '../core/index.ts';
import { messageText, renderSummary, uncarriedIds } from '../core/index.ts';
import { getTokenCounter } from '../tokenizers/index.ts';
import {
  type ContextConfig,
  DEFAULT_MODEL,
  foldCurationEvents,
  formatHistory,
  type LoadedSession,
  loadSession,
  prepareLoadedSession,
  type Workspace,
  type WorkspaceContext,
} from '../workspace/index.ts';
import {
  coveredCount,
  requirementEvidence,
  TOOL_EVIDENCE_SHOWN,
  withEvidencePointers,
  withTodoPointers,
} from './compressed-forms.ts';
import { derivedFromFirst, positionIn } from './conversation-positions.ts';
import { type LongSessionSettings, longSessionSettings } from './long-session-settings.ts';
import { RECALL_LAYER, SEARCH_HISTORY_TOOL, type SessionIndexes } from './session-recall.ts';
import type { HistorySummary, SessionCompression, SessionState, SessionStore } from './session-store.ts';
import {
  newTurnRecallCap,
  sessionRecallSource,
  settleTurnRecall,
  type TurnRecall,
  type TurnRecallCap,
  turnRecallOf,
} from './turn-recall.ts';

/**
 * A session's layers sent before the history (decision 063): the TODO changes only on
 * `/compress` or a `once` injection's first delivery, so it stays in the cached prefix with
 * the history. The summary joins them when the call sends history after the cut (decision
 * 068, {@link sessionStableLayers}). Knowledge (retrieval) and a fresh recall follow the query.
 */
const SESSION_STABLE_LAYERS: readonly string[] = ['todo__context'];

/**
 * The layers a session's call sends before the history (decisions 063 and 068): the TODO; the
 * summary when history after the cut is sent — it changes only when the cut moves, and then the
 * history's first message changes too, so it breaks no prefix that was not broken already
 * (with no history after the cut it follows the knowledge layer, which a move leaves alone);
 * and a held recall.
 */
export function sessionStableLayers(input: { liveHistory: boolean; heldRecall: boolean }): string[] {
  return [
    ...SESSION_STABLE_LAYERS,
    ...(input.liveHistory ? ['compression__context'] : []),
    ...(input.heldRecall ? [RECALL_LAYER] : []),
  ];
}

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
  /** Compiles with this compression state instead of the stored one (a compaction not stored yet). */
  compression?: SessionCompression;
  /** What a compaction did before this call, for the report (decision 040). */
  actions?: readonly CompactionAction[];
  /** The engine's conversation indexes: with them, a long session recalls older messages (decision 040). */
  indexes?: SessionIndexes;
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
  /** The compression state compiled with (the stored one unless overridden). */
  compression: SessionCompression;
  config: ContextConfig;
  counter: TokenCounter;
  /** The conversation as the model sees it (commands left out, curation applied), oldest first. */
  conversation: readonly Message[];
  /** How many conversation messages are behind the cut (the summary's coverage). */
  cutCount: number;
  /** The long-session settings; `undefined` for a `last-n` session (its window is a choice). */
  longSession: LongSessionSettings | undefined;
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
 * curation and compression through the {@link SessionStore}; the rolling summary enters
 * `compression__context` with its coverage (covered messages are reported `summarized`,
 * `recalled` or `recallable`), older messages relevant to the query enter `recall__context`,
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
  const compression = options.compression ?? state.compression;
  const evidence = requirementEvidence(compression);
  const loaded = await loadSession({
    workspace,
    sessionId,
    ...(options.query === undefined ? {} : { query: options.query }),
    record: { messages: state.messages, curation: state.curation },
  });
  // Seed 004 §2: the requirement TODO is the compressed form of the user's requirement
  // messages it quotes — they are sent as a pointer to it, not a second time in full.
  if (evidence.size > 0) {
    loaded.messages = withTodoPointers(
      loaded.messages,
      evidence,
      loaded.config.chatHistory.placeholderLocale,
    );
  }
  // Seed 004 §2.2: a tool output `/compress artifacts` indexed is sent as its handle.
  loaded.messages = withEvidencePointers(loaded.messages, compression);
  const { config } = loaded;
  const counter = options.counter ?? getTokenCounter(config.budget.model ?? DEFAULT_MODEL);
  const structured = compression.structured;
  // The recall's limit for this turn's calls, set by the first that leaves its steps too little room (decision 068).
  const recallCap = newTurnRecallCap();
  const history = await sessionHistory({ loaded, state, compression, options, counter, evidence, recallCap });
  const recall = history.recall;
  const sources: ContextSource[] = [
    ...(structured === null
      ? []
      : [createCompressionSource({ load: () => structured, toolEvidence: TOOL_EVIDENCE_SHOWN })]),
    ...history.sources,
    ...(options.sources ?? []),
  ];
  // Made again when a turn's first call sets the recall's cap: its sources collect once per prepare.
  const prepare = () =>
    prepareLoadedSession(loaded, {
      counter,
      sources,
      ...(options.summarizer === undefined ? {} : { summarizer: options.summarizer }),
      ...(options.queryId === undefined ? {} : { queryId: options.queryId }),
      ...(history.compression === undefined ? {} : { compression: history.compression }),
      ...(options.tools === undefined ? {} : { tools: options.tools }),
      ...(options.toolResults === undefined ? {} : { toolResults: options.toolResults }),
      // A held recall goes before the history: it is the same until the cut moves (decision 063).
      stableLayers: sessionStableLayers({
        liveHistory: history.conversation
          .slice(history.cutCount)
          .some((message) => message.id !== options.queryId),
        heldRecall: recall?.held !== undefined,
      }),
    });
  let prepared = prepare();
  return {
    state,
    compression,
    config,
    counter,
    conversation: history.conversation,
    cutCount: history.cutCount,
    longSession: history.settings,
    async compile(step = {}) {
      const compiled = { ...(await prepared.compile(step.steps)), state };
      const indexes = options.indexes;
      if (indexes === undefined) return compiled;
      return settleTurnRecall({
        compiled,
        compiledOf: (made) => made.compiled,
        recompile: async () => {
          // Sources collect once per prepared compile: the capped recall needs a new one.
          prepared = prepare();
          return { ...(await prepared.compile(step.steps)), state };
        },
        recall: () => recall,
        recallCap,
        steps: step.steps ?? [],
        counter,
        indexes,
        sessionId: options.sessionId,
        turnId: options.queryId,
        persist: true,
      });
    },
  };
}

/** The summary, its coverage and the recall of a session's compile (decision 040). */
async function sessionHistory(input: {
  loaded: LoadedSession;
  state: SessionState;
  compression: SessionCompression;
  options: CompileSessionOptions;
  counter: TokenCounter;
  evidence: ReadonlyMap<string, string[]>;
  recallCap: TurnRecallCap;
}) {
  const { loaded, state, compression, options, evidence } = input;
  const { config } = loaded;
  const settings = longSessionSettings(config);
  const conversation = formatHistory({
    messages: loaded.messages,
    curation: state.curation,
    chatHistory: config.chatHistory,
  });
  const summary = compression.summary;
  const cutCount = summary === null ? 0 : coveredCount(state.messages, summary.throughMessageId);
  const curated = foldCurationEvents(state.curation);
  const sources: ContextSource[] = [];
  let recall: TurnRecall | undefined;
  if (settings !== undefined && options.indexes !== undefined && settings.recallRatio > 0 && cutCount > 0) {
    const hooks = turnRecallOf({
      indexes: options.indexes,
      sessionId: options.sessionId,
      throughMessageId: summary?.throughMessageId ?? '',
      cap: input.recallCap,
    });
    sources.push(
      await sessionRecallSource({
        sessionId: options.sessionId,
        indexes: options.indexes,
        indexed: conversationMessages(loaded.messages),
        conversation,
        cutCount,
        eligible: (id) => !curated.has(id) && !evidence.has(id),
        settings,
        config,
        compression,
        counter: input.counter,
        ...hooks.options,
      }),
    );
    recall = hooks.recall();
  }
  return {
    conversation,
    cutCount,
    settings,
    sources,
    recall,
    compression:
      summary === null
        ? options.actions === undefined
          ? undefined
          : { summary: '', actions: options.actions }
        : summaryCompression({
            summary,
            conversation,
            cutCount,
            curated,
            ...(options.actions === undefined ? {} : { actions: options.actions }),
          }),
  };
}

/** The last position a summary's periods cover. */
function reachOf(periods: readonly SummaryPeriod[]): number {
  let reach = 0;
  for (const period of periods) reach = Math.max(reach, period.from + period.count - 1);
  return reach;
}

/**
 * The compression a long session's call sends for its stored summary (decision 040): the
 * rolling summary rendered (a message curated after it was summarised shows as its
 * placeholder, never as its old text), the cut (`throughMessageId`, the conversation's
 * message at `cutCount`), which covered messages no sent text carries (`uncarried`, reported
 * recallable) and the compaction's actions. One rendering for a chat turn's call and an agent's
 * (decision 066).
 */
export function summaryCompression(input: {
  summary: HistorySummary;
  /** The conversation as the model sees it (curated), oldest first: positions as in the periods. */
  conversation: readonly Message[];
  cutCount: number;
  curated: ReadonlyMap<string, unknown> | ReadonlySet<string>;
  actions?: readonly CompactionAction[];
}): NonNullable<CompileRequest['compression']> {
  const { summary, conversation, cutCount, curated } = input;
  const through = cutCount === 0 ? undefined : conversation[cutCount - 1]?.id;
  const periods = summary.periods;
  const text =
    periods === undefined
      ? summary.text
      : renderSummary(periods, {
          note: `older periods condensed; ${SEARCH_HISTORY_TOOL} finds any earlier message`,
          replace: (id) => {
            if (!curated.has(id)) return undefined;
            const at = positionIn(conversation, id);
            const message = at === 0 ? undefined : conversation[at - 1];
            return message === undefined ? null : `- ${message.role}: ${messageText(message)}`;
          },
        });
  return {
    summary: text,
    ...(through === undefined ? {} : { throughMessageId: through }),
    ...(periods === undefined
      ? {}
      : {
          // The same periods over the same first messages: once per stored summary, not per compile.
          uncarried: derivedFromFirst(conversation, periods, reachOf(periods), () =>
            uncarriedIds(periods, conversation),
          ),
        }),
    recallTool: SEARCH_HISTORY_TOOL,
    ...(input.actions === undefined ? {} : { actions: input.actions }),
  };
}
