import type { BaseMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import { END, START, StateGraph, type StateSchemaField } from '@langchain/langgraph';
import type { BaseCheckpointSaver, CheckpointTuple } from '@langchain/langgraph-checkpoint';
import { type CompressionState, CompressionStateSchema } from '../compression/index.ts';
import { deepFreeze } from '../core/deep-freeze.ts';
import { CtxloomError, type Message } from '../core/index.ts';
import { quoteShortened, shorten } from '../core/shorten.ts';
import { threadDecoder } from '../langchain/from-langchain.ts';
import { toLangChain } from '../langchain/index.ts';
import { CompressionStateModule } from '../runtime/compression/compression-state-module.ts';
import { StateBuilder } from '../state/index.ts';
import { sessionMessagesReducer } from '../state/messages-reducer.ts';
import { checkMessages } from '../workspace/session/messages-schema.ts';
import { EMPTY_COMPRESSION } from './compression-file.ts';
import { HeadCache } from './head-cache.ts';
import { createSessionBlackboard, SESSION_KEYS, type StoredCompression } from './session-channels.ts';
import {
  CALL_LOG_CAPACITY,
  type CallRecord,
  type CurationEvent,
  checkCurationEvents,
  type HistorySummary,
  MAX_LISTED_CALLS,
  type SessionCompression,
  type SessionStore,
} from './session-store.ts';
import { createProcessThreadLock, type ThreadLock } from './thread-lock.ts';

/** The node a session-store write is attributed to in the thread's checkpoint metadata. */
export const SESSION_STORE_NODE = 'session_store';

/**
 * The writes `work` may make while it holds a session's lock ({@link CheckpointSessionStore.exclusive}):
 * the store's own would wait for the lock it holds. The session engine stores what a process
 * turn's agent calls did to the history's cut, and the summariser's calls, after the run
 * (decision 066).
 */
export interface HeldSessionWrites {
  saveCompression: (
    compression: Omit<SessionCompression, 'revision'>,
    options: { expectedRevision: number },
  ) => Promise<SessionCompression>;
  appendCall: (call: CallRecord) => Promise<void>;
}

/** Options of {@link createCheckpointSessionStore}. */
export interface CheckpointSessionStoreOptions {
  /** Any LangGraph checkpoint saver: ctxloom's `SqliteSaver` (embedded) or `PostgresSaver`. */
  saver: BaseCheckpointSaver;
  /** Adapter name for reports and errors. Default `checkpoint`. */
  kind?: string;
  /**
   * The LangGraph `thread_id` of a session. Default: the session id itself, so a runtime
   * process run with `{ configurable: { thread_id: sessionId } }` on the same saver reads
   * and writes the same session.
   */
  threadIdOf?: (sessionId: string) => string;
  /**
   * Serialises writes to one thread. Default: within this process, shared by every store on
   * the same saver (one process per SQLite file); give `createPostgresThreadLock` when
   * several processes share PostgreSQL.
   */
  lock?: ThreadLock;
  /**
   * Holds a session's thread across a whole turn ({@link SessionStore.holdTurn}), against other
   * processes' turns. Default: none (the session engine keeps turns apart within its process).
   */
  turnLock?: ThreadLock;
  /** Call records kept per session (≥ 1). Default {@link CALL_LOG_CAPACITY}. */
  callCapacity?: number;
  /** More application fields the session threads carry; a write keeps every field it knows. */
  extensions?: Record<string, StateSchemaField>;
  /** Blackboard snapshot frequency of the delta channels. Default 500. */
  snapshotFrequency?: number;
  /** Threads whose head values are kept in memory between calls (≥ 1). Default 64. */
  cachedThreads?: number;
}

/** A session store over checkpoints, with the resources it holds. */
export interface CheckpointSessionStore extends SessionStore {
  /**
   * The Blackboard of its threads. Build a runtime process over it
   * (`createSequentialProcess({ blackboard: store.blackboard, … })`) and the process's agent
   * nodes log every model call they send in the session's call log.
   */
  readonly blackboard: ReturnType<typeof createSessionBlackboard>;
  /** The LangGraph `thread_id` of a session. */
  threadIdOf(sessionId: string): string;
  /**
   * The id of the session thread's newest checkpoint (`null` before the first write): it
   * changes with every write, from this process or any other on the same database.
   */
  headVersion(sessionId: string): Promise<string | null>;
  /**
   * Runs `work` holding this store's lock of the session's thread, so none of the store's
   * writes lands in between (the session engine runs a process turn in it).
   */
  exclusive<T>(sessionId: string, work: (held: HeldSessionWrites) => Promise<T>): Promise<T>;
  /** Closes the lock's connections (not the saver: its owner closes it). */
  close(): Promise<void>;
}

/**
 * The LangGraph-checkpoints adapter of {@link SessionStore}: the LangGraph state *is* the
 * session. A session is one thread (`threadIdOf`, default the session id; root namespace)
 * holding ctxloom's Blackboard: `messages` (the delta channel runtime agents read and
 * append to), `compression__context` (the summary text agents compile) and three
 * extension fields — `session_curation` and `session_calls` (delta channels; the call
 * log keeps the newest `callCapacity`) and `session_compression` (summary with its
 * coverage, seed 004's structured state, revision). Each write is one `updateState` of a
 * one-node graph over that Blackboard, so LangGraph does the channel bookkeeping, inside
 * the {@link ThreadLock} of the thread: read, check (duplicate ids, curation targets,
 * revision), write — all-or-nothing, nothing lost between two writers. Decision record 019.
 *
 * @example
 * const saver = new SqliteSaver({ path: 'sessions.db' });
 * const store = createCheckpointSessionStore({ saver, kind: 'sqlite' });
 * await store.appendMessages('s1', [{ id: 'u1', role: 'user', content: 'hi' }]);
 */
export function createCheckpointSessionStore(options: CheckpointSessionStoreOptions): CheckpointSessionStore {
  const capacity = Math.max(1, Math.floor(options.callCapacity ?? CALL_LOG_CAPACITY));
  const blackboard = createSessionBlackboard({
    callCapacity: capacity,
    ...(options.snapshotFrequency === undefined ? {} : { snapshotFrequency: options.snapshotFrequency }),
    ...(options.extensions === undefined ? {} : { extensions: options.extensions }),
  });
  const graph = new StateGraph(blackboard.schema)
    .addNode(SESSION_STORE_NODE, () => ({}))
    .addEdge(START, SESSION_STORE_NODE)
    .addEdge(SESSION_STORE_NODE, END)
    .compile({ checkpointer: options.saver });
  const lock = options.lock ?? processLockOf(options.saver);
  const threadIdOf = options.threadIdOf ?? ((sessionId: string) => sessionId);
  const configOf = (sessionId: string): RunnableConfig => ({
    configurable: { thread_id: threadIdOf(sessionId), checkpoint_ns: '' },
  });
  const set = (_current: unknown, write: unknown) => write;
  const append = (current: unknown, write: unknown) => [
    ...((current ?? []) as unknown[]),
    ...(write as unknown[]),
  ];
  const cache = new HeadCache({
    limit: options.cachedThreads ?? 64,
    reducers: {
      messages: (current, write) => sessionMessagesReducer((current ?? []) as BaseMessage[], [write]),
      [SESSION_KEYS.curation]: append,
      [SESSION_KEYS.calls]: (current, write) => append(current, write).slice(-capacity),
      [SESSION_KEYS.compression]: set,
      compression__context: set,
      compression_through: set,
      namespace: set,
      session_id: set,
    },
  });

  /** The values at the head `tuple`: from the cache when it holds that checkpoint, else replayed. */
  async function valuesAt(
    sessionId: string,
    tuple: CheckpointTuple | undefined,
  ): Promise<Record<string, unknown>> {
    if (tuple === undefined) return {};
    const threadId = threadIdOf(sessionId);
    const checkpointId = tuple.checkpoint.id;
    const settled = (tuple.pendingWrites ?? []).length === 0;
    const cached = settled ? cache.get(threadId, checkpointId) : undefined;
    if (cached !== undefined) return cached as Record<string, unknown>;
    const view = await graph.getState(tuple.config);
    const values = (view.values ?? {}) as Record<string, unknown>;
    if (settled) cache.set(threadId, checkpointId, values);
    return values;
  }

  async function values(sessionId: string): Promise<Record<string, unknown>> {
    return valuesAt(sessionId, await options.saver.getTuple(configOf(sessionId)));
  }

  /**
   * Reads the head, lets `build` check it and fill a patch, and writes the patch — under the
   * lock. A write that checks nothing (`read: false`) skips reading the values: a read
   * replays the delta channels, and `updateState` replays them once more.
   */
  async function write(
    sessionId: string,
    build: (state: Record<string, unknown>, sb: StateBuilder) => void,
    { read = true, held = false }: { read?: boolean; held?: boolean } = {},
  ): Promise<void> {
    const threadId = threadIdOf(sessionId);
    const body = async () => {
      const config = configOf(sessionId);
      let tuple = await options.saver.getTuple(config);
      assertKnownChannels(sessionId, tuple);
      if (cutOff(tuple)) {
        // An update stores its writes on the head, then the checkpoint after it. One cut off
        // in between (kill -9, a failed put) left writes under the task id the next update
        // derives from the same head, and a saver keeps the first write of a task and index:
        // the next update's writes — a user message — would be dropped, silently. Seal the head
        // first: LangGraph's empty update forks past its pending writes, which no reader saw.
        await graph.updateState(config, null);
        tuple = await options.saver.getTuple(config);
      }
      const settled = tuple === undefined || (tuple.pendingWrites ?? []).length === 0;
      const cached =
        tuple === undefined ? {} : settled ? cache.get(threadId, tuple.checkpoint.id) : undefined;
      const state = read ? await valuesAt(sessionId, tuple) : (cached ?? {});
      const sb = new StateBuilder(state, { blackboard });
      if ((read || cached !== undefined) && !state.session_id) sb.session.start({ namespace: '', sessionId });
      build(state, sb);
      const patch = sb.patch();
      const next = await graph.updateState(config, patch, SESSION_STORE_NODE);
      const base = read ? state : cached;
      cache.advance(threadId, base, patch, next.configurable?.checkpoint_id as string | undefined);
    };
    // A write of `exclusive`'s work runs under the lock its caller holds.
    await (held ? body() : lock.run(threadId, body));
  }

  /**
   * A write keeps only the channels this store's Blackboard knows; refuse a thread whose head
   * holds others (a run of a graph with more fields, or one left unfinished) rather than drop them.
   */
  function assertKnownChannels(sessionId: string, tuple: CheckpointTuple | undefined): void {
    const unknown = Object.keys(tuple?.checkpoint.channel_values ?? {}).filter(
      (key) => !blackboard.keys.has(key) && !key.startsWith(`branch:to:${SESSION_STORE_NODE}`),
    );
    if (unknown.length === 0) return;
    throw new CtxloomError({
      code: 'conflict',
      message: `session "${sessionId}" (thread "${threadIdOf(sessionId)}") holds state this store does not know (${unknown.join(', ')}): a run is unfinished, or its graph has fields to pass as \`extensions\`; nothing was stored`,
      path: unknown[0] ?? '',
    });
  }

  async function saveCompression(
    sessionId: string,
    compression: Omit<SessionCompression, 'revision'>,
    { expectedRevision }: { expectedRevision: number },
    held = false,
  ): Promise<SessionCompression> {
    if (compression.structured !== null) {
      const parsed = CompressionStateSchema.safeParse(compression.structured);
      if (!parsed.success) {
        throw new CtxloomError({
          code: 'invalid-argument',
          message: `invalid structured compression state: ${parsed.error.issues[0]?.message ?? ''}`,
          path: ['structured', ...(parsed.error.issues[0]?.path ?? []).map(String)].join('.'),
        });
      }
    }
    let saved: SessionCompression | undefined;
    let committed: CompressionState | undefined;
    await write(
      sessionId,
      (state, sb) => {
        const stored = (state[SESSION_KEYS.compression] ?? null) as StoredCompression | null;
        const revision = stored?.revision ?? 0;
        if (revision !== expectedRevision) {
          throw new CtxloomError({
            code: 'conflict',
            message: `compression of session "${sessionId}" is at revision ${revision}, the write expected ${expectedRevision}`,
            details: { stored: revision, expected: expectedRevision },
          });
        }
        saved = structuredClone({ ...compression, revision: revision + 1 });
        // The structured state goes to the thread's compression fields (one copy, the one
        // runtime agents compile and extend); the record keeps the rest.
        if (compression.structured !== null) {
          const module = new CompressionStateModule(sb);
          committed = module.commit(compression.structured, {
            expectedRevision: module.snapshot()?.revision ?? null,
          });
        }
        sb.setExtension(SESSION_KEYS.compression, {
          ...saved,
          structured: null,
        } satisfies StoredCompression);
        // Runtime agents compile `compression__context`: keep it the summary text.
        sb.compression.persistCompression(
          compression.summary?.text ?? '',
          compression.summary?.throughMessageId,
        );
      },
      { held },
    );
    return structuredClone({ ...(saved as SessionCompression), structured: committed ?? null });
  }
  async function appendCall(sessionId: string, call: CallRecord, held = false): Promise<void> {
    const record = structuredClone(call);
    deepFreeze(record);
    await write(
      sessionId,
      (_state, sb) => {
        sb.setExtension(SESSION_KEYS.calls, [record]);
      },
      { read: false, held },
    );
  }

  return {
    kind: options.kind ?? 'checkpoint',
    blackboard,
    async load(sessionId) {
      const state = await values(sessionId);
      const stored = (state[SESSION_KEYS.compression] ?? null) as StoredCompression | null;
      // Fields a newer port added default as in a file written before them.
      const compression: SessionCompression = { ...EMPTY_COMPRESSION, ...stored };
      // Seed 004's structured state lives where runtime agents read and extend it: the
      // thread's compression fields (a thread written before them keeps it in the record).
      const module = new CompressionStateModule(new StateBuilder(state, { blackboard }));
      const structured = module.snapshot();
      const messages = messagesOf(state);
      if (structured !== undefined) {
        compression.structured = structured;
        // A process's commander extracts each user message's requirements as it routes it:
        // those are processed, and `/compress` must not propose them again.
        const routed = module.coordination().lastTurn?.commander?.messageId;
        const position = (id: string | null | undefined) =>
          id == null ? -1 : messages.findIndex((message) => message.id === id);
        const through = compression.processedThrough.requirements;
        if (routed !== undefined && position(routed) > position(through)) {
          compression.processedThrough = { ...compression.processedThrough, requirements: routed };
        }
      }
      compression.summary = currentSummary(state, compression.summary, messages);
      // The messages are frozen and shared (a new array); the rest is the caller's own copy.
      const { curation, compression: copied } = structuredClone({
        curation: (state[SESSION_KEYS.curation] ?? []) as CurationEvent[],
        compression,
      });
      return { sessionId, messages, curation, compression: copied };
    },
    async appendMessages(sessionId, messages) {
      if (messages.length === 0) return;
      const batch = validateMessages(messages);
      await write(sessionId, (state, sb) => {
        const ids = new Set(((state.messages ?? []) as BaseMessage[]).map((message) => message.id));
        for (const message of batch) {
          if (ids.has(message.id)) {
            throw new CtxloomError({
              code: 'conflict',
              message: `message id ${JSON.stringify(shorten(message.id))} is already stored in session "${sessionId}"; nothing was stored`,
              path: shorten(message.id),
            });
          }
          ids.add(message.id);
        }
        sb.messages.append(toLangChain(batch));
      });
    },
    async appendCuration(sessionId, events) {
      if (events.length === 0) return;
      checkCurationEvents(events);
      const batch = structuredClone([...events]);
      await write(sessionId, (state, sb) => {
        const stored = new Set(((state.messages ?? []) as BaseMessage[]).map((message) => message.id));
        const missing = batch.filter((event) => !stored.has(event.targetMessageId));
        if (missing.length > 0) {
          throw new CtxloomError({
            code: 'not-found',
            message: `no message with id ${quoteShortened(missing.map((event) => event.targetMessageId))} in session "${sessionId}"; nothing was stored`,
            path: shorten(missing[0]?.targetMessageId ?? ''),
          });
        }
        sb.setExtension(SESSION_KEYS.curation, batch);
      });
    },
    ...(options.turnLock === undefined
      ? {}
      : {
          holdTurn: <T>(sessionId: string, work: () => Promise<T>) =>
            (options.turnLock as ThreadLock).run(threadIdOf(sessionId), work),
        }),
    saveCompression: (sessionId, compression, options) => saveCompression(sessionId, compression, options),
    appendCall: (sessionId, call) => appendCall(sessionId, call),
    async listCalls(sessionId, listOptions = {}) {
      const limit = Math.min(MAX_LISTED_CALLS, Math.max(1, listOptions.limit ?? CALL_LOG_CAPACITY));
      const calls = ((await values(sessionId))[SESSION_KEYS.calls] ?? []) as CallRecord[];
      return sharedRecords(calls.slice(-limit));
    },
    async deleteSession(sessionId) {
      const threadId = threadIdOf(sessionId);
      await lock.run(threadId, () => options.saver.deleteThread(threadId));
    },
    threadIdOf,
    async headVersion(sessionId) {
      return (await options.saver.getTuple(configOf(sessionId)))?.checkpoint.id ?? null;
    },
    exclusive: (sessionId, work) =>
      lock.run(threadIdOf(sessionId), () =>
        work({
          saveCompression: (compression, options) => saveCompression(sessionId, compression, options, true),
          appendCall: (call) => appendCall(sessionId, call, true),
        }),
      ),
    close: () => lock.close(),
  };
}

/**
 * The summary the thread holds now. `compression__context` / `compression_through` are what
 * runtime agents compile and write; the port's record counts only while it matches them. A
 * summary an agent wrote with its coverage (`compression_through`) reads as covering the
 * messages from the first through that one; one without coverage claims nothing (`null`).
 */
function currentSummary(
  state: Record<string, unknown>,
  recorded: HistorySummary | null,
  messages: readonly Message[],
): HistorySummary | null {
  const text = (state.compression__context ?? '') as string;
  const through = (state.compression_through ?? null) as string | null;
  if (text === '') return null;
  if (recorded !== null && recorded.text === text && recorded.throughMessageId === through) return recorded;
  const ids = messages.filter((message) => message.role !== 'system').map((message) => message.id);
  const index = through === null ? -1 : ids.indexOf(through);
  const first = ids[0];
  if (index < 0 || first === undefined || through === null) return null;
  return {
    text,
    fromMessageId: first,
    throughMessageId: through,
    coveredCount: index + 1,
    summarizer: 'runtime agent',
    createdAt: '',
  };
}

/**
 * Whether the head holds the pending writes of an update that never put its checkpoint: an
 * update (`updateState`, this store's writes) leaves none behind when it completes but the
 * `Send`s it schedules (LangGraph's push channel), unlike a graph run, whose head keeps the
 * writes of a step it will resume.
 */
function cutOff(tuple: CheckpointTuple | undefined): boolean {
  return (
    tuple?.metadata?.source === 'update' &&
    (tuple.pendingWrites ?? []).some(([, channel]) => channel !== PUSH_CHANNEL)
  );
}

/** LangGraph's channel of `Send`s (`PUSH`, not exported by the package). */
const PUSH_CHANNEL = '__pregel_push';

/** One process lock per saver, so two stores over one saver in this process queue together. */
const PROCESS_LOCKS = new WeakMap<BaseCheckpointSaver, ThreadLock>();
function processLockOf(saver: BaseCheckpointSaver): ThreadLock {
  let lock = PROCESS_LOCKS.get(saver);
  if (lock === undefined) {
    lock = createProcessThreadLock();
    PROCESS_LOCKS.set(saver, lock);
  }
  return lock;
}

/**
 * `records` (a slice of the log, the caller's array) with each record frozen in place, as every
 * `listCalls` shares them: a record holds its call's whole report, and a long session's turn
 * lists its newest records several times. The head's values are decoded from the saver, so the
 * records in them are the store's own; a record `appendCall` writes is a frozen copy of the caller's.
 */
function sharedRecords(records: CallRecord[]): CallRecord[] {
  for (const record of records) deepFreeze(record);
  return records;
}

/** The store's decoder of a thread's messages (a load decodes what the thread added since the last). */
const decodeThread = threadDecoder();

function messagesOf(state: Record<string, unknown>): Message[] {
  return decodeThread((state.messages ?? []) as BaseMessage[]).slice();
}

/** Checks the whole batch before anything is written: message shapes and ids. */
function validateMessages(messages: readonly Message[]): Message[] {
  // Repeated ids are refused where the batch is appended (`conflict`).
  const checked = checkMessages(messages, { uniqueIds: false, refuseReservedIds: true });
  if (!checked.success) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: `message ${String(checked.issue.path[0])} is not a valid message: ${checked.issue.message}; nothing was stored`,
      path: checked.issue.path.join('.'),
    });
  }
  return structuredClone([...messages]);
}
