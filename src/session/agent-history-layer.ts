import { createCallLogWriter } from '../core/call-log-writer.ts';
import type {
  ArtifactHandleStore,
  CallRecord,
  CompactionAction,
  CompiledContext,
  CompileRequest,
  ContextSource,
  Message,
  Summarizer,
  TokenCounter,
} from '../core/index.ts';
import {
  type ContextConfig,
  type CurationEvent,
  foldCurationEvents,
  type SessionHistoryLayer,
} from '../workspace/index.ts';
import { type HistoryHit, searchHistoryTool } from './chat-tools.ts';
import type { HeldSessionWrites } from './checkpoint-session-store.ts';
import { sessionStableLayers, summaryCompression } from './compile-session.ts';
import { positionIn } from './conversation-positions.ts';
import { fitWithinBudget, rollSessionCut } from './fit-session-call.ts';
import type { LongSessionSettings } from './long-session-settings.ts';
import type { SessionIndexes } from './session-recall.ts';
import type { HistorySummary, SessionCompression, SessionStore } from './session-store.ts';
import {
  newTurnRecallCap,
  sessionRecallSource,
  settleTurnRecall,
  type TurnRecall,
  type TurnRecallCap,
  turnRecallOf,
} from './turn-recall.ts';

/** Options of {@link createAgentHistory}. */
export interface AgentHistoryOptions {
  store: SessionStore;
  sessionId: string;
  /** The session manifest (its window sizes the recall as a chat turn's). */
  config: ContextConfig;
  settings: LongSessionSettings;
  counter: TokenCounter;
  /** The engine's one summariser (decision 040). */
  summarizer: Summarizer;
  indexes: SessionIndexes;
  /** The turn's user message: the cut never passes it, nor what follows it. */
  turnId?: string;
  /**
   * True for a turn: the cut the agent calls moved is stored after the run. False for a
   * preview: moves stay in memory, and a summariser that calls a model moves nothing.
   */
  persist: boolean;
  now: () => Date;
  createId: () => string;
  /**
   * Searches the session's whole conversation: an agent's `search_history` (as the chat
   * model's), a long hit's whole text put in `store`.
   */
  searchHistory?: (
    query: string,
    limit: number,
    store: ArtifactHandleStore,
    steps: readonly Message[],
  ) => Promise<HistoryHit[]>;
}

/** A long session's history for the agent calls of one process turn (decision 066). */
export interface AgentHistory {
  /** What the turn's agent calls compile with (`SessionLayers.history`). */
  layer: SessionHistoryLayer;
  /** Reads the session's stored cut and summary: under the session's lock, before the run. */
  begin(): Promise<void>;
  /**
   * Stores the cut and summary the run's calls moved to, then the summariser's calls, through
   * the writes of the lock the run was held under. Nothing when nothing moved.
   */
  finish(held: HeldSessionWrites): Promise<void>;
}

/**
 * The chat turn's long-session machinery for the agents of a process turn (decision 066):
 * each agent call is fitted by {@link fitWithinBudget} — the rule of a chat turn's call — over
 * the agent's own history: it starts at the session's stored cut, the session's rolling
 * summary (rendered as a chat turn's) stands for what precedes it, older messages relevant to
 * the call's query are recalled, and when the call would pass the soft limit or drop history
 * the cut moves forward (the passing messages rolled into the summary by the engine's
 * summariser). The cut is the turn's: a later call of the run starts from where an earlier
 * one left it, and the engine stores it after the run (an agent node cannot write the store
 * during a process turn), so the next turn starts there too.
 */
export function createAgentHistory(options: AgentHistoryOptions): AgentHistory {
  const { settings, counter, summarizer } = options;
  let loaded: Promise<{ compression: SessionCompression; curation: CurationEvent[] }> | undefined;
  let summary: HistorySummary | null = null;
  let moved = false;
  // Per agent of the turn, the recall's cap once its first call set it (decision 068).
  const recallCaps = new Map<string, TurnRecallCap>();
  const logged: CallRecord[] = [];
  let step = 0;
  const summarizerCalls =
    options.turnId === undefined
      ? undefined
      : createCallLogWriter({
          turnId: options.turnId,
          model: summarizer.name,
          agentId: 'summarizer',
          createId: options.createId,
          now: options.now,
          append: (record) => {
            logged.push(record);
          },
        });
  const load = () => {
    loaded ??= options.store.load(options.sessionId).then((state) => {
      summary = state.compression.summary;
      return { compression: state.compression, curation: state.curation };
    });
    return loaded;
  };

  const search = options.searchHistory;
  const layer: SessionHistoryLayer = {
    async tools(store, steps) {
      // Offered from the session's first call, before any cut (decision 066, second amendment):
      // a step dropped for room is recallable only by a search the call already has, and a
      // tool set that never changes keeps the cached prefix.
      if (search === undefined) return {};
      return searchHistoryTool((query, limit) => search(query, limit, store, steps?.() ?? []));
    },
    async fit(request, compile, fitOptions = {}) {
      const { compression, curation } = await load();
      const curated = foldCurationEvents(curation);
      const conversation = request.history ?? [];
      const cutCount = () => positionIn(conversation, summary?.throughMessageId);
      // The turn being answered never passes the cut: its message, and what the run added after it.
      const turnAt = positionIn(conversation, options.turnId) - 1;
      const lastIsQuery =
        request.query !== undefined && typeof request.query !== 'string'
          ? conversation.at(-1)?.id === request.query.id
          : false;
      const end = turnAt >= 0 ? turnAt : lastIsQuery ? conversation.length - 1 : conversation.length;
      // Every move of this call is in its report.
      const actions: CompactionAction[] = [];
      // The agent's recall is held and capped as a chat turn's (decisions 063, 068), per agent:
      // each asks its own questions.
      const agentId = typeof request.metadata?.agentId === 'string' ? request.metadata.agentId : '';
      const { sessionId, indexes } = options;
      const holder = `agent:${agentId}`;
      const recallCap = recallCaps.get(agentId) ?? newTurnRecallCap();
      recallCaps.set(agentId, recallCap);
      const compileOnce = async () => {
        const cut = cutCount();
        const sources: ContextSource[] = [];
        let recall: TurnRecall | undefined;
        if (settings.recallRatio > 0 && cut > 0) {
          const hooks = turnRecallOf({
            indexes,
            sessionId,
            holder,
            throughMessageId: summary?.throughMessageId ?? '',
            cap: recallCap,
          });
          sources.push(
            await sessionRecallSource({
              sessionId,
              indexes,
              // What precedes the turn: a preview (its question not stored yet) ranks as the turn.
              indexed: conversation.slice(0, end),
              conversation,
              cutCount: cut,
              eligible: (id) => !curated.has(id),
              settings,
              config: options.config,
              compression: { ...compression, summary },
              counter,
              ...hooks.options,
            }),
          );
          recall = hooks.recall();
        }
        // Before the history: the TODO, the summary while history after the cut is sent, and a
        // held recall — what changes only when the cut moves (decisions 063, 068).
        const stableLayers = sessionStableLayers({
          liveHistory: cut < end,
          heldRecall: recall?.held !== undefined,
        });
        const compiled = await compile(
          withSummary({ request, summary, conversation, cutCount: cut, curated, actions }),
          sources,
          { stableLayers },
        );
        return { compiled, recall };
      };
      return fitWithinBudget<CompiledContext>({
        settings,
        counter,
        // A tool step's own outputs come first; its move plans with the recall's whole slot (063).
        stepping: (request.steps ?? []).length > 0,
        compile: async () => {
          let recall: TurnRecall | undefined;
          const compileCall = async () => {
            const made = await compileOnce();
            recall = made.recall;
            return made.compiled;
          };
          return settleTurnRecall({
            compiled: await compileCall(),
            compiledOf: (made) => made,
            recompile: compileCall,
            recall: () => recall,
            recallCap,
            steps: request.steps ?? [],
            counter,
            indexes,
            sessionId,
            holder,
            turnId: options.turnId,
            persist: options.persist,
          });
        },
        core: (compiled) => compiled,
        ...(fitOptions.ownStage === true ? { ownStage: true } : {}),
        live: () => conversation.slice(cutCount(), Math.max(cutCount(), end)),
        mayMove: () => options.persist || summarizer.summarizeMessage !== undefined,
        move: async (passing, trigger, capTokens) => {
          const rolled = await rollSessionCut({
            context: {
              summarizer,
              now: options.now,
              ...(summarizerCalls === undefined || !options.persist
                ? {}
                : {
                    onSummarizerCall: async (compiled: CompiledContext) => {
                      await summarizerCalls.log(compiled, step++);
                    },
                  }),
            },
            summary,
            conversation,
            cutCount: cutCount(),
            counter,
            passing,
            trigger,
            capTokens,
            // Counted in the stored record when it is stored (`finish`).
            coveredCount: () => 0,
          });
          summary = rolled.summary;
          moved = true;
          actions.push(...rolled.actions);
        },
      });
    },
  };

  return {
    layer,
    async begin() {
      await load();
    },
    async finish(held) {
      if (options.persist && moved && summary !== null) {
        const state = await options.store.load(options.sessionId);
        const through = summary.throughMessageId;
        const { revision, ...fields } = state.compression;
        await held.saveCompression(
          {
            ...fields,
            summary: {
              ...summary,
              coveredCount: state.messages.findIndex((message) => message.id === through) + 1,
            },
          },
          { expectedRevision: revision },
        );
      }
      for (const record of logged.splice(0)) await held.appendCall(record);
    },
  };
}

/**
 * The request with the session's summary and cut: the rendered rolling summary stands for the
 * conversation up to the cut. A compact stage's own cover of the history (seed 004's notice)
 * that reaches further keeps its cut, its notice after the summary.
 */
function withSummary(input: {
  request: CompileRequest;
  summary: HistorySummary | null;
  conversation: readonly Message[];
  cutCount: number;
  curated: ReadonlyMap<string, unknown>;
  actions: readonly CompactionAction[];
}): CompileRequest {
  const { request, summary, conversation, cutCount } = input;
  const own = request.compression;
  const actions = input.actions.length === 0 ? {} : { actions: [...input.actions] };
  if (summary === null || cutCount === 0) {
    if (input.actions.length === 0) return request;
    return { ...request, compression: { ...(own ?? { summary: '' }), ...actions } };
  }
  const session = summaryCompression({
    summary,
    conversation,
    cutCount,
    curated: input.curated,
    ...actions,
  });
  const ownAt =
    own?.throughMessageId === undefined
      ? -1
      : conversation.findIndex((message) => message.id === own.throughMessageId);
  if (own === undefined || ownAt < cutCount) return { ...request, compression: session };
  return {
    ...request,
    compression: {
      ...session,
      summary: [session.summary, own.summary].filter((text) => text !== '').join('\n\n'),
      throughMessageId: own.throughMessageId as string,
    },
  };
}
