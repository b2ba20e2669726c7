import { createUIMessageStream, type UIMessageChunk } from 'ai';
import { CtxloomError, messageText } from '../core/index.ts';
import { PLACEHOLDER_LOCALE_KEY, SESSION_LAYERS_KEY, submitInput } from '../runtime/index.ts';
import { humanMessageId } from '../state/index.ts';
import type { NotebookUIMessage } from '../stream/index.ts';
import type { PlaceholderLocale, SessionLayers } from '../workspace/index.ts';
import type { CheckpointSessionStore } from './checkpoint-session-store.ts';
import type { SessionProcess, Turn, TurnInput } from './session-engine.ts';

/** What a process turn needs of the engine. */
export interface ProcessTurnContext {
  process: SessionProcess;
  store: CheckpointSessionStore;
  createId: () => string;
  /** The session manifest's `chatHistory.placeholderLocale`: the agents' curated history uses it. */
  placeholderLocale: PlaceholderLocale;
  /** The session manifest's layers (prompts, profile and injection blocks, retrieval): every agent call compiles them. */
  layers: SessionLayers;
}

/**
 * A turn run by a LangGraph process on the session's thread: the user message enters once
 * through `submitInput` (deterministic id `human:<session>:<messageId>`, processed-input
 * ledger, one writer per thread), the process routes it and its agent nodes compile (curated
 * history in the manifest's placeholder language, the manifest's layers beside their own), log
 * and send their calls; the engine then streams what the process stored — the reports of the
 * turn's logged calls and the replies — in the notebook's UI message protocol. Everything is
 * stored before the stream starts. A re-sent message id is a `conflict` (nothing ran).
 */
export async function runProcessTurn(
  input: TurnInput & { text: string },
  context: ProcessTurnContext,
): Promise<Turn> {
  const { process, store, createId, placeholderLocale, layers } = context;
  const inputId = input.messageId !== undefined && input.messageId !== '' ? input.messageId : createId();
  const userMessageId = humanMessageId({ sessionId: input.sessionId, inputId });
  const waitMs = Math.min(60_000, Math.max(0, process.waitMs ?? 0));
  const result = await store.exclusive(input.sessionId, () =>
    submitInput({
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
      input: { inputId, content: input.text },
      session: { namespace: process.namespace ?? 'ctxloom', sessionId: input.sessionId },
      blackboard: store.blackboard,
      lease: { waitMs },
    }),
  );
  if (!result.accepted) {
    throw new CtxloomError({
      code: 'conflict',
      message: result.interrupted
        ? `session "${input.sessionId}" waits at an interrupt: answer it before sending a new message`
        : `message id "${inputId}" was already processed in session "${input.sessionId}"`,
      path: inputId,
      details: { accepted: false, ...(result.interrupted ? { interrupted: true } : {}) },
    });
  }
  const state = await store.load(input.sessionId);
  const at = state.messages.findIndex((message) => message.id === userMessageId);
  const answer = at < 0 ? [] : state.messages.slice(at + 1);
  const calls = (await store.listCalls(input.sessionId)).filter((call) => call.turnId === userMessageId);
  const replies = answer.filter((message) => message.role === 'assistant' && messageText(message) !== '');
  const assistantId = replies.at(-1)?.id ?? createId();
  const stream = createUIMessageStream<NotebookUIMessage>({
    generateId: createId,
    execute: ({ writer }) => {
      writer.write({ type: 'start', messageId: assistantId });
      for (const call of calls) {
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
      }
      for (const reply of replies) {
        const id = `${reply.id}-text`;
        writer.write({ type: 'text-start', id });
        writer.write({ type: 'text-delta', id, delta: messageText(reply) });
        writer.write({ type: 'text-end', id });
      }
      writer.write({ type: 'finish' });
    },
  });
  return {
    stream: stream as ReadableStream<UIMessageChunk>,
    compiled: undefined,
    userMessageId,
    stored: Promise.resolve(answer),
  };
}
