import { AIMessage, AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import { createUIMessageStream, type UIMessageChunk, type UIMessageStreamWriter } from 'ai';
import { type CallRecord, CtxloomError, type Message, messageText } from '../core/index.ts';
import { toLangChain } from '../langchain/index.ts';
import {
  PLACEHOLDER_LOCALE_KEY,
  SESSION_LAYERS_KEY,
  submitInput,
  type WatchedMode,
} from '../runtime/index.ts';
import { humanMessageId } from '../state/index.ts';
import type { NotebookUIMessage } from '../stream/index.ts';
import type { PlaceholderLocale, SessionLayers } from '../workspace/index.ts';
import type { AgentHistory } from './agent-history-layer.ts';
import type { CheckpointSessionStore } from './checkpoint-session-store.ts';
import { SESSION_KEYS } from './session-channels.ts';
import type { SessionProcess, Turn, TurnInput } from './session-engine.ts';
import { MAX_LISTED_CALLS } from './session-store.ts';
import { turnMessageId } from './turn-message-id.ts';

/** What a process turn needs of the engine. */
export interface ProcessTurnContext {
  process: SessionProcess;
  store: CheckpointSessionStore;
  createId: () => string;
  /** The session manifest's `chatHistory.placeholderLocale`: the agents' curated history uses it. */
  placeholderLocale: PlaceholderLocale;
  /**
   * The session manifest's layers (prompts, profile and injection blocks, retrieval, budget,
   * composition, the turn's user message with its references merged): every agent call
   * compiles them.
   */
  layers: SessionLayers;
  /**
   * A long session's history for the turn's agent calls (`layers.history`): its stored cut is
   * read under the session's lock before the run, and the cut the calls moved is stored after
   * it, under the same lock (decision 066).
   */
  history?: AgentHistory;
}

/**
 * A turn run by a LangGraph process on the session's thread: the user message enters once
 * through `submitInput` (deterministic id `human:<session>:<messageId>`, processed-input
 * ledger, one writer per thread; its metadata records what it delivered, as a chat turn's), the
 * process routes it and its agent nodes compile (curated history in the manifest's placeholder
 * language, the manifest's layers beside their own, under its budget and composition, the
 * turn's message with its references merged), log
 * and send their calls. The turn returns once the input is accepted and streams the run as it
 * happens, in the notebook's UI message protocol: the agents' tokens as LangGraph's `messages`
 * stream mode yields them, each call's report when its node's patch is written (`updates`),
 * then — after the run — any stored reply or logged call the live stream did not carry. A
 * re-sent message id is a `conflict` (nothing ran).
 */
export async function runProcessTurn(
  input: TurnInput & { text: string },
  context: ProcessTurnContext,
): Promise<Turn> {
  const { process, store, createId, placeholderLocale, layers } = context;
  const inputId = turnMessageId(input, createId);
  const userMessageId = humanMessageId({ sessionId: input.sessionId, inputId });
  const waitMs = Math.min(60_000, Math.max(0, process.waitMs ?? 0));
  // Chunks that arrive before the UI stream is writing wait here.
  const early: [WatchedMode, unknown][] = [];
  let onChunk: (mode: WatchedMode, chunk: unknown) => void = (mode, chunk) => {
    early.push([mode, chunk]);
  };
  let accept!: () => void;
  const accepted = new Promise<void>((resolve) => {
    accept = resolve;
  });
  const run = store.exclusive(input.sessionId, async (held) => {
    await context.history?.begin();
    const result = await submitInput({
      graph: process.graph,
      config: {
        configurable: {
          thread_id: store.threadIdOf(input.sessionId),
          checkpoint_ns: '',
          [PLACEHOLDER_LOCALE_KEY]: placeholderLocale,
          [SESSION_LAYERS_KEY]: layers,
        },
        ...(input.signal === undefined ? {} : { signal: input.signal }),
      },
      input: {
        inputId,
        content: input.text,
        ...storedMetadata(userMessageId, input.text, layers.query?.metadata),
      },
      session: { namespace: process.namespace ?? 'ctxloom', sessionId: input.sessionId },
      blackboard: store.blackboard,
      lease: { waitMs },
      watch: {
        modes: ['messages', 'updates'],
        onChunk: (mode, chunk) => onChunk(mode, chunk),
        onAccepted: accept,
      },
    }).finally(async () => {
      // What the calls that were sent moved is stored, also when a later call failed.
      await context.history?.finish(held);
    });
    return result;
  });
  // A failure after acceptance reaches the reader through the stream (below).
  run.catch(() => {});
  const refused = await Promise.race([accepted.then(() => undefined), run]);
  if (refused !== undefined && !refused.accepted) {
    throw new CtxloomError({
      code: 'conflict',
      message: refused.interrupted
        ? `session "${input.sessionId}" waits at an interrupt: answer it before sending a new message`
        : `message id "${inputId}" was already processed in session "${input.sessionId}"`,
      path: inputId,
      details: { accepted: false, ...(refused.interrupted ? { interrupted: true } : {}) },
    });
  }
  const assistantId = createId();
  let resolveStored!: (messages: Message[]) => void;
  let rejectStored!: (error: unknown) => void;
  const stored = new Promise<Message[]>((resolve, reject) => {
    resolveStored = resolve;
    rejectStored = reject;
  });
  stored.catch(() => {});
  const stream = createUIMessageStream<NotebookUIMessage>({
    generateId: createId,
    execute: async ({ writer }) => {
      writer.write({ type: 'start', messageId: assistantId });
      const answer = answerWriter(writer, userMessageId);
      onChunk = answer.chunk;
      for (const [mode, chunk] of early.splice(0)) answer.chunk(mode, chunk);
      await run;
      const state = await store.load(input.sessionId);
      const at = state.messages.findIndex((message) => message.id === userMessageId);
      const answered = at < 0 ? [] : state.messages.slice(at + 1);
      const calls = await turnCalls(store, input.sessionId, userMessageId);
      for (const call of calls) answer.report(call);
      for (const reply of answered) answer.reply(reply);
      answer.close();
      resolveStored(answered);
      writer.write({ type: 'finish' });
    },
    onError: (error) => {
      rejectStored(error);
      return error instanceof Error ? error.message : 'the turn failed';
    },
  });
  return {
    stream: stream as ReadableStream<UIMessageChunk>,
    compiled: undefined,
    userMessageId,
    stored,
  };
}

/**
 * What the stored user message records, as a chat turn's does (the references' provenance,
 * the manifest references and `once` injections it delivered — later turns do not attach them
 * again), in the LangChain codec's `additional_kwargs`.
 */
function storedMetadata(
  id: string,
  text: string,
  metadata: Record<string, unknown> | undefined,
): { additionalKwargs?: Record<string, unknown> } {
  if (metadata === undefined || Object.keys(metadata).length === 0) return {};
  const [message] = toLangChain([{ id, role: 'user', content: text, metadata }]);
  return message === undefined ? {} : { additionalKwargs: message.additional_kwargs };
}

/**
 * Writes a process turn's answer into the UI stream: text parts by message id (a token chunk
 * continues its message's part), one report per logged call — each message and call once,
 * whether it came live or from the store after the run.
 */
function answerWriter(writer: UIMessageStreamWriter<NotebookUIMessage>, turnId: string) {
  const reported = new Set<string>();
  const written = new Set<string>();
  let open: string | undefined;
  const close = () => {
    if (open !== undefined) writer.write({ type: 'text-end', id: `${open}-text` });
    open = undefined;
  };
  const text = (id: string, delta: string) => {
    if (delta === '') return;
    if (open !== id) {
      close();
      open = id;
      writer.write({ type: 'text-start', id: `${id}-text` });
    }
    written.add(id);
    writer.write({ type: 'text-delta', id: `${id}-text`, delta });
  };
  const report = (call: CallRecord) => {
    if (call.turnId !== turnId || reported.has(call.id)) return;
    reported.add(call.id);
    writer.write({
      type: 'data-context-report',
      id: `report-${call.id}`,
      data: {
        report: call.report,
        warnings: [],
        references: [],
        model: { spec: call.model, offline: false },
        callId: call.id,
      },
    });
  };
  return {
    chunk(mode: WatchedMode, chunk: unknown) {
      if (mode === 'messages') {
        const [message] = chunk as [BaseMessage, unknown];
        if (AIMessage.isInstance(message) || AIMessageChunk.isInstance(message)) {
          text(message.id ?? '', message.text);
        }
      } else if (mode === 'updates') {
        for (const update of Object.values(chunk as Record<string, unknown>)) {
          for (const patch of Array.isArray(update) ? update : [update]) {
            const records = (patch as Record<string, unknown> | null)?.[SESSION_KEYS.calls];
            if (Array.isArray(records)) for (const record of records) report(record as CallRecord);
          }
        }
      }
    },
    report,
    /** A stored message of the turn: an assistant reply not streamed live is written whole. */
    reply(message: Message) {
      if (message.role !== 'assistant' || written.has(message.id)) return;
      text(message.id, messageText(message));
      close();
    },
    close,
  };
}

/**
 * The call records of a turn just run: the newest of the log (the turn held the session's lock).
 * Read in growing windows from the newest, so a turn does not clone the whole log (a record
 * holds its call's report) to find its own few.
 */
export async function turnCalls(
  store: Pick<CheckpointSessionStore, 'listCalls'>,
  sessionId: string,
  turnId: string,
): Promise<CallRecord[]> {
  for (let limit = 8; ; limit *= 4) {
    const calls = await store.listCalls(sessionId, { limit });
    const first = calls.findIndex((call) => call.turnId === turnId);
    // Complete once an older record (or the log's start) precedes the turn's first.
    if (first !== 0 || calls.length < limit || limit >= MAX_LISTED_CALLS)
      return first < 0 ? [] : calls.slice(first).filter((call) => call.turnId === turnId);
  }
}
