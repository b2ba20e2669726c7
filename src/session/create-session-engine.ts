import { randomUUID } from 'node:crypto';
import { createCallLogWriter } from '../core/call-log-writer.ts';
import {
  type CompactionAction,
  type CompiledContext,
  CtxloomError,
  countMessage,
  createExtractiveSummarizer,
  type Message,
  renderSummary,
  type Summarizer,
  type TokenCounter,
  withSharedTokenCache,
} from '../core/index.ts';
import { createModelSummarizer } from '../llm/index.ts';
import { humanMessageId } from '../state/index.ts';
import { getTokenCounter } from '../tokenizers/index.ts';
import { type CurationEvent, DEFAULT_MODEL, describeReadFileParts } from '../workspace/index.ts';
import { type ChatToolsContext, createChatTools, type TurnTools, turnTools } from './chat-tools.ts';
import {
  type CompileSessionOptions,
  type PreparedSession,
  prepareSessionCompile,
} from './compile-session.ts';
import { compressSession, DEFAULT_KEEP_LAST } from './compress-session.ts';
import { compileWithinBudget, type FittedCall, moveSessionCut } from './fit-session-call.ts';
import { inputBudgetOf } from './long-session-settings.ts';
import { createProcessCalls } from './process-session-calls.ts';
import { readSessionManifest } from './read-session-manifest.ts';
import { runProcessTurn } from './run-process-turn.ts';
import { runTurn, turnText } from './run-turn.ts';
import { createHistorySearch } from './search-history.ts';
import { parseSessionCommand } from './session-commands.ts';
import type { SessionEngine, SessionEngineOptions, Turn, TurnInput } from './session-engine.ts';
import { createSessionIndexes, SEARCH_HISTORY_TOOL } from './session-recall.ts';
import type { SessionCompression, SessionStore } from './session-store.ts';
import { createProcessThreadLock } from './thread-lock.ts';
import { globalCallTracer } from './trace-calls.ts';
import { turnMessageId } from './turn-message-id.ts';
import { inSlot } from './turn-slot.ts';

/**
 * Creates the session engine over a workspace (manifests and files) and a
 * {@link SessionStore} (messages, curation, compression, call log).
 * @example
 * const engine = createSessionEngine({ workspace, store: createFileSessionStore({ workspace }), model });
 * const preview = await engine.compile('raft-consensus');
 * const turn = await engine.runTurn({ sessionId: 'raft-consensus', text: 'What is a term?' });
 */
export function createSessionEngine(options: SessionEngineOptions): SessionEngine {
  const { workspace, store } = options;
  const now = options.now ?? (() => new Date());
  const createId = options.createId ?? randomUUID;
  // Resolved once: the optional peer is looked up at most once per engine.
  const tracer = options.tracer === false ? undefined : (options.tracer ?? globalCallTracer());
  // Each call measures the whole history again: a given counter's texts are cached once.
  const given = options.counter === undefined ? undefined : withSharedTokenCache(options.counter);
  const counterFor = (model: string | undefined): TokenCounter =>
    model === undefined && given !== undefined ? given : getTokenCounter(model ?? DEFAULT_MODEL);

  // The default tools: the workspace tools, whose `dismiss_memory` stores through this engine.
  const chatTools: ChatToolsContext = {
    workspace,
    curate: (sessionId, request) => engine.curate(sessionId, request),
    now,
    createId,
  };
  const toolsOf = options.tools ?? ((sessionId: string) => createChatTools(chatTools, sessionId));

  // One conversation index per session, kept for the engine's life (decision 040).
  const indexes = createSessionIndexes(options.embedder === undefined ? {} : { embedder: options.embedder });
  const searchHistory = createHistorySearch(store, indexes);
  // One summariser for every entry point: the model's when a real model is set, else the
  // extractive one for the session's tokenizer (decision 040).
  const modelSummarizer =
    options.summarizer ??
    (options.model === undefined || options.model.offline
      ? undefined
      : createModelSummarizer({ model: options.model.model, name: options.model.spec }));
  const summarizerFor = (counter: TokenCounter): Summarizer =>
    modelSummarizer ?? createExtractiveSummarizer({ counter });

  /** Where the summariser's model calls of one turn are logged (agent `summarizer`). */
  const summarizerCalls = (sessionId: string, turnId: string, summarizer: Summarizer) =>
    createCallLogWriter({
      turnId,
      model: summarizer.name,
      agentId: 'summarizer',
      createId,
      now,
      append: (record) => store.appendCall(sessionId, record),
    });

  /**
   * Loads a session for one turn's calls: the same tools, counted, in the preview and every
   * step. `override.tools`: the turn's own (a call compiled again after the cut moved keeps
   * the artifact store the model's `open_artifact` reads); default new ones.
   */
  async function prepare(
    sessionId: string,
    compileOptions: Pick<CompileSessionOptions, 'query' | 'queryId'> = {},
    override: {
      compression?: SessionCompression;
      actions?: readonly CompactionAction[];
      tools?: TurnTools;
    } = {},
  ): Promise<{ prepared: PreparedSession; tools: TurnTools }> {
    await requireFolder(sessionId);
    const tools =
      override.tools ??
      (await turnTools(
        toolsOf(sessionId),
        // The default tools search the conversation; a caller's own set is left as it is.
        options.tools === undefined
          ? (query, limit, artifacts, steps) => searchHistory(sessionId, query, limit, artifacts, steps)
          : undefined,
      ));
    const prepared = await prepareSessionCompile({
      workspace,
      store,
      sessionId,
      ...compileOptions,
      indexes,
      ...(override.compression === undefined ? {} : { compression: override.compression }),
      ...(override.actions === undefined ? {} : { actions: override.actions }),
      ...(given === undefined ? {} : { counter: given }),
      ...(tools.definitions.length === 0
        ? {}
        : {
            tools: tools.definitions,
            toolResults: {
              store: tools.store,
              describeParts: describeReadFileParts,
              // A step dropped for room is found again by the turn's `search_history`.
              ...(tools.noteSteps === undefined ? {} : { recallTool: SEARCH_HISTORY_TOOL }),
            },
          }),
    });
    return { prepared, tools };
  }

  /**
   * Compiles a call within the session's budget, moving the cut first when it must (decision
   * 040): stored before a call that is sent (`turnId` set), in memory for a preview. `tools`:
   * the turn's, which a call compiled again after a move keeps (its placeholders go to the
   * store the model reads).
   */
  async function fitCall(
    sessionId: string,
    compileOptions: Pick<CompileSessionOptions, 'query' | 'queryId'>,
    prepared: PreparedSession,
    steps: readonly import('../core/index.ts').Message[] | undefined,
    turnId: string | undefined,
    tools?: TurnTools,
  ): Promise<FittedCall> {
    // The turn's `search_history` covers its steps so far (decision 070, fifth amendment).
    tools?.noteSteps?.(steps ?? []);
    const summarizer = summarizerFor(prepared.counter);
    const calls = turnId === undefined ? undefined : summarizerCalls(sessionId, turnId, summarizer);
    let step = 0;
    return compileWithinBudget(
      {
        store,
        sessionId,
        summarizer,
        persist: turnId !== undefined,
        prepare: async (override) =>
          (await prepare(sessionId, compileOptions, tools === undefined ? override : { ...override, tools }))
            .prepared,
        ...(calls === undefined
          ? {}
          : {
              onSummarizerCall: async (compiled: CompiledContext) => {
                await calls.log(compiled, step++);
              },
            }),
        now,
      },
      prepared,
      steps,
    );
  }

  /**
   * A message curated after a model's summary period took it in: that period is written again
   * from the messages as they now read (a model's text cannot drop one message's lines), so the
   * old text never reaches a model again. Per-message periods need nothing: their line is
   * replaced when the summary is rendered.
   */
  async function resummariseCurated(
    sessionId: string,
    targets: ReadonlySet<string>,
    turnId: string,
  ): Promise<void> {
    if (processCalls !== undefined) return;
    // Only a model's period (no per-message lines) needs writing again; most curations find none.
    const stored = (await store.load(sessionId)).compression.summary?.periods;
    if (stored === undefined || stored.every((period) => period.carried !== undefined)) return;
    const { prepared } = await prepare(sessionId);
    const summary = prepared.compression.summary;
    const periods = summary?.periods;
    if (summary === null || periods === undefined) return;
    const summarizer = summarizerFor(prepared.counter);
    const calls = summarizerCalls(sessionId, turnId, summarizer);
    let step = 0;
    let changed = false;
    const next = [];
    for (const period of periods) {
      const run = prepared.conversation.slice(period.from - 1, period.from - 1 + period.count);
      if (period.carried !== undefined || !run.some((message) => targets.has(message.id))) {
        next.push(period);
        continue;
      }
      const result = await summarizer.summarize({
        messages: run,
        maxTokens: Math.max(64, prepared.counter.countText(period.text)),
        onCall: async (compiled) => {
          await calls.log(compiled, step++);
        },
      });
      next.push({
        ...period,
        text: typeof result === 'string' ? result : result.text,
        summarizer: summarizer.name,
      });
      changed = true;
    }
    if (!changed) return;
    const { revision, ...fields } = prepared.compression;
    await store.saveCompression(
      sessionId,
      { ...fields, summary: { ...summary, periods: next, text: renderSummary(next) } },
      { expectedRevision: revision },
    );
  }

  const compile: SessionEngine['compile'] = async (sessionId, compileOptions = {}) => {
    if (processCalls !== undefined) return processCalls.compile(sessionId, compileOptions.query);
    const { prepared } = await prepare(sessionId, compileOptions);
    return (await fitCall(sessionId, compileOptions, prepared, undefined, undefined)).compiled;
  };

  /** Input tokens of the session's next call with a compression state not stored yet. */
  async function tokensWith(sessionId: string, compression: SessionCompression): Promise<number> {
    const { prepared } = await prepare(sessionId, {}, { compression });
    return (await fitCall(sessionId, {}, prepared, undefined, undefined)).compiled.report.totalTokens;
  }

  /** Input tokens of the session's next call: the preview's, or the process's own preview. */
  async function nextCallTokens(sessionId: string): Promise<number> {
    if (processCalls === undefined) return (await compile(sessionId)).report.totalTokens;
    if (options.process?.preview === undefined) return Number.NaN;
    return (await processCalls.compile(sessionId, undefined)).report.totalTokens;
  }

  async function requireFolder(sessionId: string): Promise<void> {
    workspace.session(sessionId); // validates the id
    const folder = await workspace.sandbox.stat(sessionId);
    if (folder?.kind !== 'directory') {
      throw new CtxloomError({ code: 'not-found', message: `no session "${sessionId}"`, path: sessionId });
    }
  }

  const processCalls =
    options.process === undefined
      ? undefined
      : createProcessCalls({
          workspace,
          store,
          process: options.process,
          counter: given,
          summarizerFor,
          indexes,
          now,
          createId,
          searchHistory,
          requireFolder,
        });

  // A turn (a chat turn or a process turn) holds its session from its load until its answer
  // is stored (or it fails): in this process by `turns`, across processes by the store's
  // `holdTurn`. Two turns of one session otherwise interleaved — both questions stored, then
  // both answers — or, in a process session, built their contexts from the same state.
  const turns = createProcessThreadLock();
  const heldTurn = (input: TurnInput, start: () => Promise<Turn>): Promise<Turn> =>
    new Promise<Turn>((resolve, reject) => {
      const { sessionId } = input;
      const work = async () => {
        let turn: Turn;
        try {
          turn = await inSlot(input, start);
        } catch (error) {
          reject(error);
          return;
        }
        resolve(turn);
        await turn.stored.catch(() => undefined);
      };
      turns
        .run(sessionId, () => (store.holdTurn === undefined ? work() : store.holdTurn(sessionId, work)))
        .catch(reject);
    });

  const engine: SessionEngine = {
    store,
    compile,
    async runTurn(input) {
      await requireFolder(input.sessionId);
      const text = turnText(input);
      if (
        processCalls !== undefined &&
        options.process !== undefined &&
        text !== '' &&
        parseSessionCommand(text) === undefined
      ) {
        const messageId = turnMessageId(input, createId);
        const userMessageId = humanMessageId({ sessionId: input.sessionId, inputId: messageId });
        // Held as a chat turn is: the turn's context (the session's state, its `once`
        // injections) is read after the turn before it is stored, and a turn waiting for its
        // session holds no slot.
        return heldTurn(input, async () =>
          runProcessTurn(
            { ...input, text, messageId },
            await processCalls.turnContext(input.sessionId, text, userMessageId),
          ),
        );
      }
      return heldTurn(input, () =>
        runTurn(input, { options, engine, prepare, fitCall, now, createId, tracer }),
      );
    },
    async compress(sessionId, compressOptions = {}) {
      await requireFolder(sessionId);
      // One preview: its total is the "before" of a session without a process.
      const before = processCalls === undefined ? await compile(sessionId) : undefined;
      const tokensBefore = before === undefined ? await nextCallTokens(sessionId) : before.report.totalTokens;
      const original = before?.state.compression;
      const counter = given ?? counterFor(before?.config.budget.model);
      const result = await compressSession({
        store,
        sessionId,
        counter,
        // Compiled before it is stored (below), except for a process session.
        write: processCalls !== undefined,
        ...(compressOptions.scope === undefined ? {} : { scope: compressOptions.scope }),
        ...(compressOptions.keepLast === undefined ? {} : { keepLast: compressOptions.keepLast }),
        ...(compressOptions.maxTokens === undefined ? {} : { maxTokens: compressOptions.maxTokens }),
        // The engine's one summariser, as automatic compaction uses (decision 040).
        summarizer: summarizerFor(counter),
        ...(options.proposer === undefined ? {} : { proposer: options.proposer }),
        ...(options.model === undefined || options.model.offline ? {} : { model: options.model.model }),
        placeholderLocale: (before?.config ?? (await readSessionManifest({ workspace, sessionId })))
          .chatHistory.placeholderLocale,
        now,
        createId,
        ...(compressOptions.signal === undefined ? {} : { signal: compressOptions.signal }),
        ...(compressOptions.turnId === undefined ? {} : { turnId: compressOptions.turnId }),
      });
      if (processCalls !== undefined || original === undefined) {
        return { ...result, tokensBefore, tokensAfter: await nextCallTokens(sessionId) };
      }
      // `/compress` never makes the next call larger (decision 040). The new state is compiled
      // before it is stored; when the TODO or the artifact index it adds outweighs what it
      // replaced, older turns move behind the cut (in memory) until it does not; if it still
      // would, nothing is stored.
      let next = result.compression;
      let tokensAfter = await tokensWith(sessionId, next);
      const keep = Math.max(0, compressOptions.keepLast ?? DEFAULT_KEEP_LAST);
      for (let move = 0; move < 8 && tokensAfter > tokensBefore; move++) {
        const { prepared } = await prepare(sessionId, {}, { compression: next });
        const settings = prepared.longSession;
        const live = prepared.conversation.slice(prepared.cutCount);
        if (settings === undefined || live.length <= keep) break;
        let passing = 0;
        let freed = 0;
        // A summary line costs about half its message: free about twice the excess.
        while (passing < live.length - keep && freed < 2 * (tokensAfter - tokensBefore)) {
          freed += countMessage(prepared.counter, live[passing] as Message);
          passing++;
        }
        while (passing < live.length - keep && live[passing]?.role !== 'user') passing++;
        if (passing === 0) break;
        next = (
          await moveSessionCut({
            context: {
              store,
              sessionId,
              summarizer: summarizerFor(prepared.counter),
              persist: false,
              now,
              ...(compressOptions.signal === undefined ? {} : { signal: compressOptions.signal }),
            },
            prepared,
            passing,
            trigger: 'command',
            capTokens: Math.floor(settings.summaryRatio * inputBudgetOf(prepared.config)),
          })
        ).compression;
        tokensAfter = await tokensWith(sessionId, next);
      }
      if (tokensAfter > tokensBefore) {
        return {
          ...result,
          compression: original,
          tokensBefore,
          tokensAfter: tokensBefore,
          declined: { wouldBe: tokensAfter },
        };
      }
      const { revision: _revision, ...fields } = next;
      const stored = await store.saveCompression(sessionId, fields, { expectedRevision: original.revision });
      return { ...result, compression: stored, tokensBefore, tokensAfter };
    },
    async curate(sessionId, input) {
      await requireFolder(sessionId);
      const at = now().toISOString();
      const events: CurationEvent[] = input.targetMessageIds.map((targetMessageId) => ({
        id: createId(),
        type: input.action,
        targetMessageId,
        by: input.by ?? 'user',
        at,
        ...(input.summary === undefined ? {} : { summary: input.summary }),
        ...(input.toolCallId === undefined ? {} : { toolCallId: input.toolCallId }),
      }));
      await store.appendCuration(sessionId, events);
      await resummariseCurated(sessionId, new Set(input.targetMessageIds), events[0]?.id ?? createId());
      return events;
    },
    async listCalls(sessionId, listOptions) {
      await requireFolder(sessionId);
      return store.listCalls(sessionId, listOptions);
    },
  };
  return engine;
}
