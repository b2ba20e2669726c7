import { mkdirSync } from 'node:fs';
import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import { type CompressionState, createCompressionState, type ThreadId } from '../../src/compression/index.ts';
import { type CompiledContext, CtxloomError, type Message } from '../../src/core/index.ts';
import { fromLangChain } from '../../src/langchain/index.ts';
import type { PendingRequest } from '../../src/routing/index.ts';
import {
  type CommanderRecord,
  type CompactionRecord,
  CompressionStateModule,
} from '../../src/runtime/index.ts';
import {
  type CheckpointSessionStore,
  createCheckpointSessionStore,
  createSessionEngine,
  parseSessionCommand,
  type SessionEngine,
  type SessionProcess,
  type Turn,
} from '../../src/session/index.ts';
import { humanMessageId, StateBuilder, type TimelineEntry } from '../../src/state/index.ts';
import {
  createSession,
  openWorkspace,
  type PlaceholderLocale,
  type SessionLayers,
  type Workspace,
} from '../../src/workspace/index.ts';
import { createEtlProcess, type EtlProcessOptions } from './etl-process.ts';

/** What one user message led to, read back from the checkpointed state. */
export interface EtlTurn {
  inputId: string;
  userMessage: Message;
  /** False when the input id had already been processed (nothing ran). */
  accepted: boolean;
  /** The commander's record: outcome, target, confidence, actions. */
  commander: CommanderRecord | undefined;
  /** The commander's reviews of the agents' work (with `review: true`): rework and gate decisions. */
  reviews?: CommanderRecord[];
  /** The agent that answered, if any. */
  agentId?: string;
  /** The agent's reply, the clarification question, or the `/compress` notice. */
  reply: string;
  /** How the agent's payload was prepared (tokens, trigger, clipping). */
  compaction?: CompactionRecord;
  /** The request the agent opened with a `QUESTION:` reply. */
  request?: PendingRequest;
  /** What `/compress` did (a command: no agent ran). */
  compress?: { scope: string; tokensBefore: number; tokensAfter: number; summarised?: number };
}

/** A running ETL conversation over a checkpointed process. */
export interface EtlSession {
  threadId: ThreadId;
  /** The workspace session id (the thread's `sessionId`). */
  sessionId: string;
  /** The session engine every message goes through (`engine.runTurn`). */
  engine: SessionEngine;
  /** The checkpoint session store on the process's thread. */
  store: CheckpointSessionStore;
  /** The process as the engine runs it (give it to `createNotebookApp({ process })` to serve the session). */
  process: SessionProcess;
  /** The workspace holding the session's folder. */
  workspace: Workspace;
  /** Sends one user message (input id `u<turn>` unless given; a re-sent id is a no-op). */
  send(text: string, options?: { inputId?: string }): Promise<EtlTurn>;
  /** The Blackboard's `messages`, as ctxloom messages. */
  messages(): Promise<Message[]>;
  /** The compression state kept in the Blackboard. */
  state(): Promise<CompressionState>;
  pendingRequests(): Promise<PendingRequest[]>;
  /** The raw checkpointed values (for inspection and tests). */
  values(): Promise<Record<string, unknown>>;
  /**
   * The first call the session's current agent (the one a pending question waits on, else
   * the last to answer, else the analyst) would send for `query` — as its node compiles it,
   * with the session manifest's layers: the engine's preview (`engine.compile`).
   */
  preview(query?: string): Promise<CompiledContext>;
}

/** Options of {@link createEtlSession}. */
export interface EtlSessionOptions {
  /** The checkpoint saver of the session's thread (SQLite or PostgreSQL). */
  saver: BaseCheckpointSaver;
  threadId: ThreadId;
  /** The process's models, router and budget. */
  process: Omit<EtlProcessOptions, 'blackboard' | 'checkpointer'>;
  /**
   * The workspace folder holding the session's folder (`<sessionId>/context-config.json`,
   * created when missing). Nothing else is written there: the session lives in the checkpoints.
   */
  workspaceRoot: string;
  /** Blackboard delta-channel snapshot frequency. Default 500. */
  snapshotFrequency?: number;
}

/**
 * The ETL session on ctxloom's session engine: a checkpoint session store on the thread, the
 * ETL process built over its Blackboard, and `createSessionEngine({ process })`. Every user
 * message is `engine.runTurn` — the same call the notebook's chat route makes: the process
 * routes it and its agents compile, log and send their calls; `/compress` is the engine's
 * command (history summary with its coverage, requirement TODO, artifact index, curation
 * respected), stored in the thread where the agents read it. A new session object on the same
 * saver and thread continues where the last one stopped.
 */
export async function createEtlSession(options: EtlSessionOptions): Promise<EtlSession> {
  const { threadId, saver } = options;
  const [app, , userId, , sessionId] = threadId.split(':') as [string, string, string, string, string];
  const store = createCheckpointSessionStore({
    saver,
    kind: 'etl',
    threadIdOf: () => threadId,
    ...(options.snapshotFrequency === undefined ? {} : { snapshotFrequency: options.snapshotFrequency }),
  });
  const { blackboard } = store;
  const process = createEtlProcess({ ...options.process, blackboard, checkpointer: saver });
  const config = { configurable: { thread_id: threadId } };
  const values = async () => ((await process.graph.getState(config)).values ?? {}) as Record<string, unknown>;
  const module = async () => new CompressionStateModule(new StateBuilder(await values(), { blackboard }));
  mkdirSync(options.workspaceRoot, { recursive: true });
  const workspace = openWorkspace({ root: options.workspaceRoot });
  if ((await workspace.sandbox.stat(sessionId))?.kind !== 'directory') {
    await createSession({ workspace, id: sessionId, concept: 'ETL pipeline (orders)' });
  }
  if (!(await workspace.sandbox.exists('profile.md'))) {
    await workspace.sandbox.writeText('profile.md', '# Team\n\nData engineering, orders domain.\n');
  }
  const preview = async (
    query?: string,
    manifest?: { placeholderLocale: PlaceholderLocale; layers?: SessionLayers },
  ) => {
    const state = await values();
    return process.preview(state, currentAgent(state, blackboard), query, manifest);
  };
  const sessionProcess: SessionProcess = {
    graph: process.graph,
    namespace: `${app}:user:${userId}`,
    preview: (_id, query, manifest) => preview(query, manifest),
  };
  const engine = createSessionEngine({
    workspace,
    store,
    counter: options.process.counter,
    proposer: options.process.proposer,
    process: sessionProcess,
  });
  let before: Record<string, unknown> | undefined;

  return {
    threadId,
    sessionId,
    engine,
    store,
    process: sessionProcess,
    workspace,
    values,
    // The engine's preview: the process's guess of the next agent, with the session's manifest.
    preview: async (query) =>
      (await engine.compile(sessionId, query === undefined ? {} : { query })).compiled,
    async messages() {
      return fromLangChain(new StateBuilder(await values(), { blackboard }).messages.snapshot());
    },
    async state() {
      return (await module()).snapshot() ?? createCompressionState({ threadId });
    },
    async pendingRequests() {
      return (await module()).coordination().pendingRequests;
    },
    async send(text, sendOptions = {}) {
      // The state after the previous send is the state before this one: read it once per
      // session object (resume), then reuse it — every getState replays the delta channels.
      before ??= await values();
      const turns = new CompressionStateModule(new StateBuilder(before, { blackboard })).coordination()
        .userTurns;
      const inputId = sendOptions.inputId ?? `u${turns}`;
      const timelineBefore = timelineOf(before).length;
      const command = parseSessionCommand(text.trim()) !== undefined;
      let turn: Turn;
      try {
        turn = await engine.runTurn({ sessionId, text, messageId: command ? `${inputId}:command` : inputId });
      } catch (error) {
        if (CtxloomError.is(error, 'conflict') && error.details?.accepted === false) {
          return {
            inputId,
            userMessage: { id: '', role: 'user', content: text },
            accepted: false,
            commander: undefined,
            reply: '',
          };
        }
        throw error;
      }
      const stored = await turn.stored;
      const after = await values();
      before = after;
      if (command) {
        const answer = stored.at(-1);
        const commandTurn: EtlTurn = {
          inputId,
          userMessage: { id: turn.userMessageId, role: 'user', content: text },
          accepted: true,
          commander: undefined,
          reply: answer === undefined ? '' : String(answer.content),
        };
        const brief = answer?.metadata?.compress as EtlTurn['compress'] | undefined;
        if (brief !== undefined) commandTurn.compress = brief;
        return commandTurn;
      }
      return readTurn({
        after,
        text,
        inputId,
        sessionId,
        accepted: true,
        timelineBefore,
        blackboard,
      });
    },
  };
}

/** The agent a preview compiles for: a pending question's, else the last to answer, else the analyst. */
function currentAgent(
  values: Record<string, unknown>,
  blackboard: CheckpointSessionStore['blackboard'],
): string {
  const module = new CompressionStateModule(new StateBuilder(values, { blackboard }));
  const pending = module.coordination().pendingRequests.findLast((request) => request.status === 'pending');
  if (pending !== undefined) return pending.createdBy;
  const finished = timelineOf(values).findLast((entry) => entry.kind === 'agent-finished');
  return finished?.agentId ?? 'analyst';
}

function timelineOf(values: Record<string, unknown>): TimelineEntry[] {
  return ((values.timeline as { entries?: TimelineEntry[] } | undefined)?.entries ?? []) as TimelineEntry[];
}

function readTurn(input: {
  after: Record<string, unknown>;
  text: string;
  inputId: string;
  sessionId: string;
  accepted: boolean;
  timelineBefore: number;
  blackboard: CheckpointSessionStore['blackboard'];
}): EtlTurn {
  const id = humanMessageId({ sessionId: input.sessionId, inputId: input.inputId });
  const userMessage: Message = { id, role: 'user', content: input.text };
  const turn: EtlTurn = {
    inputId: input.inputId,
    userMessage,
    accepted: input.accepted,
    commander: undefined,
    reply: '',
  };
  if (!input.accepted) return turn;
  const entries = timelineOf(input.after).slice(input.timelineBefore);
  const sb = new StateBuilder(input.after, { blackboard: input.blackboard });
  const lastTurn = new CompressionStateModule(sb).coordination().lastTurn;
  if (lastTurn?.commander?.messageId === id) {
    turn.commander = lastTurn.commander;
    if (lastTurn.compaction !== null) turn.compaction = lastTurn.compaction;
    if (lastTurn.reviews !== undefined) turn.reviews = lastTurn.reviews;
  }
  const messages = fromLangChain(sb.messages.snapshot());
  const index = messages.findIndex((message) => message.id === id);
  const reply = messages.slice(index + 1).findLast((message) => message.role === 'assistant');
  if (reply !== undefined) {
    turn.reply = typeof reply.content === 'string' ? reply.content : JSON.stringify(reply.content);
    if (reply.name !== undefined && reply.name !== 'commander') turn.agentId = reply.name;
  }
  const agent = entries.find((entry) => entry.kind === 'agent-finished');
  if (agent?.agentId !== undefined) turn.agentId = agent.agentId;
  const request = new CompressionStateModule(sb)
    .coordination()
    .pendingRequests.find((candidate) => candidate.id === `r${turn.commander?.turn ?? -1}`);
  if (request !== undefined) turn.request = request;
  return turn;
}
