import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  RemoveMessage,
  ToolMessage,
} from '@langchain/core/messages';
import { growingMemo } from '../../core/growing-memo.ts';
import { humanMessageId, inputKey } from '../message-ids.ts';
import type { ModuleContext } from './module-context.ts';

/** One user input as it arrives at the session entry. */
export interface UserInput {
  /** Stable id of this input (client message id, request id); a re-send reuses it. */
  inputId: string;
  content: string;
  /**
   * `additional_kwargs` of the stored HumanMessage. The session engine keeps the message's
   * metadata there in `ctxloom/langchain`'s encoding (the references' provenance, the manifest
   * references and `once` injections the turn delivered). Default none.
   */
  additionalKwargs?: Record<string, unknown>;
}

/**
 * The persisted history (`messages`) and the processed-input ledger (`processed_inputs`).
 * Writes are deltas only — no diff or prefix alignment against an LLM transcript exists
 * anywhere: `append` takes what must persist, `replace` rewrites the whole history.
 */
export class MessagesModule {
  readonly #context: ModuleContext;

  constructor(context: ModuleContext) {
    this.#context = context;
  }

  /**
   * The persisted history for model input: human and AI messages, and tool messages whose
   * call is in an AI message of the history (an orphaned tool result would be rejected by
   * providers). System and removal markers are dropped.
   */
  snapshot(): BaseMessage[] {
    return this.modelMessages().slice();
  }

  /**
   * {@link snapshot}'s messages, shared and read-only: the same array while the history is the
   * same. A history that extends the one last read from the same first message (LangGraph's
   * reducers append) is filtered by what it added — a long session's agent reads its whole
   * history on every call.
   */
  modelMessages(): readonly BaseMessage[] {
    return modelSnapshot((this.#context.state.messages ?? []) as readonly BaseMessage[])?.kept ?? [];
  }

  /**
   * The newest human message of the persisted history (the last {@link snapshot} would hold),
   * found from the end without filtering the whole history.
   */
  newestHuman(): BaseMessage | undefined {
    const messages = (this.#context.state.messages ?? []) as BaseMessage[];
    for (let index = messages.length - 1; index >= 0; index--) {
      const message = messages[index] as BaseMessage;
      if (HumanMessage.isInstance(message)) return message;
    }
    return undefined;
  }

  /** True when the input was already accepted in this session (even before a compaction). */
  hasProcessed(inputId: string): boolean {
    const key = inputKey({ sessionId: this.#sessionId(), inputId });
    return (
      (this.#context.state.processed_inputs ?? []).includes(key) ||
      this.#context.buffer.pendingInputs.includes(key)
    );
  }

  /**
   * Accepts one user input: appends its HumanMessage (deterministic id) and records it in
   * the ledger. Returns false, writing nothing, when the input was already processed.
   */
  acceptInput(input: UserInput): boolean {
    if (this.hasProcessed(input.inputId)) return false;
    const sessionId = this.#sessionId();
    const message = new HumanMessage({
      content: input.content,
      id: humanMessageId({ sessionId, inputId: input.inputId }),
      ...(input.additionalKwargs === undefined ? {} : { additional_kwargs: input.additionalKwargs }),
    });
    this.#context.buffer.appendMessages([message]);
    this.#context.buffer.recordInputs([inputKey({ sessionId, inputId: input.inputId })]);
    return true;
  }

  /**
   * Appends messages that must persist (a delta). A message without an id is copied with a
   * fresh id set through its constructor fields, so the id is in what LangChain serialises
   * (hot and restored state agree, and `RemoveMessage(id)` can target it); the caller's
   * object is not changed.
   */
  append(delta: readonly BaseMessage[]): void {
    this.#context.buffer.appendMessages(delta.map((message) => this.#withId(message)));
  }

  /** Rewrites the whole history (compaction, repair): REMOVE_ALL + `all`. */
  replace(all: readonly BaseMessage[]): void {
    this.#context.buffer.replaceMessages(all.map((message) => this.#withId(message)));
  }

  #withId(message: BaseMessage): BaseMessage {
    if (message.id) return message;
    const Message = message.constructor as new (fields: Record<string, unknown>) => BaseMessage;
    return new Message({ ...(message.lc_kwargs as Record<string, unknown>), id: this.#context.newId() });
  }

  #sessionId(): string {
    return this.#context.state.session_id ?? '';
  }
}

/** A thread's model messages (see `MessagesModule.modelMessages`) with what extending them needs. */
interface SnapshotMemo {
  /** Ids of the tool calls of the AI messages read. */
  calls: Set<string>;
  /** Call ids of the tool messages read that were left out for want of their call. */
  orphans: Set<string>;
  kept: BaseMessage[];
}

/** The last snapshot of each thread (by its first message), extended by what the thread adds. */
const modelSnapshot = growingMemo<BaseMessage, SnapshotMemo>({
  full: (messages) => {
    const calls = new Set<string>();
    for (const message of messages) addCalls(message, calls);
    const orphans = new Set<string>();
    return { calls, orphans, kept: modelOnly(messages, 0, calls, orphans) };
  },
  // Unless a new call answers a tool message left out; updates the last memo's sets, which it replaces.
  extend: (last, messages, from) => {
    const calls = new Set<string>();
    for (let index = from; index < messages.length; index++) addCalls(messages[index] as BaseMessage, calls);
    for (const call of calls) if (last.orphans.has(call)) return undefined;
    for (const call of calls) last.calls.add(call);
    const added = modelOnly(messages, from, last.calls, last.orphans);
    return { calls: last.calls, orphans: last.orphans, kept: last.kept.concat(added) };
  },
});

function addCalls(message: BaseMessage, calls: Set<string>): void {
  if (AIMessage.isInstance(message))
    for (const call of message.tool_calls ?? []) if (call.id) calls.add(call.id);
}

/** The model messages of `messages[from..]`; the call ids of tool messages left out go to `orphans`. */
function modelOnly(
  messages: readonly BaseMessage[],
  from: number,
  calls: ReadonlySet<string>,
  orphans: Set<string>,
): BaseMessage[] {
  const kept: BaseMessage[] = [];
  for (let index = from; index < messages.length; index++) {
    const message = messages[index] as BaseMessage;
    if (RemoveMessage.isInstance(message)) continue;
    if (HumanMessage.isInstance(message) || AIMessage.isInstance(message)) kept.push(message);
    else if (ToolMessage.isInstance(message)) {
      if (calls.has(message.tool_call_id)) kept.push(message);
      else orphans.add(message.tool_call_id);
    }
  }
  return kept;
}
