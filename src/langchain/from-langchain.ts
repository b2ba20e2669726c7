import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from '@langchain/core/messages';
import { deepFreeze } from '../core/deep-freeze.ts';
import { growingMemo } from '../core/growing-memo.ts';
import type { Message, Part } from '../core/index.ts';

/**
 * Key of `additional_kwargs` where {@link toLangChain} keeps what the LangChain fields cannot
 * say of a ctxloom message (exact parts, a tool message's name, metadata such as `command`),
 * and marks the second and later `ToolMessage` of one tool message (`partOf`).
 */
export const CTXLOOM_KWARG = 'ctxloom';

/** What `toLangChain` keeps beside the LangChain fields, only when needed. */
export interface CtxloomExtras {
  /** The exact parts, when the LangChain fields do not reproduce them. */
  content?: Message['content'];
  name?: string;
  metadata?: Record<string, unknown>;
  /** On a `ToolMessage` after the first of one tool message: that message's id. */
  partOf?: string;
}

/**
 * Messages {@link fromLangChain} decoded, kept by the LangChain message they came from: a
 * caller that decodes the same messages again and again (the checkpoint session store, at
 * every load) decodes each once.
 */
export interface DecodedMessages {
  get(message: BaseMessage): Message | undefined;
  /** Keeps `decoded` as `message`'s; returns what to hand out (the kept value). */
  keep(message: BaseMessage, decoded: Message): Message;
}

/**
 * Each LangChain message decoded once, as a frozen copy every caller shares (decision 078's
 * amendments): the checkpoint session store at every load (its values are cached by head, so
 * the same message objects come back after a write) and a runtime agent at every call (the
 * Blackboard's `messages` hold the same objects from step to step and turn to turn) hand out the
 * same messages, so what is kept per message object — a compile's records, fingerprints,
 * recalled texts — serves both. A LangChain message changed in place after it was decoded is not
 * seen again; LangGraph's reducers replace messages, they do not change them.
 */
const decodedOnce = new WeakMap<BaseMessage, Message>();
export const DECODED_ONCE: DecodedMessages = {
  get: (message) => decodedOnce.get(message),
  keep(message, decoded) {
    // A copy: the decoded parts may share objects with the LangChain message, which stays unfrozen.
    const kept = structuredClone(decoded);
    deepFreeze(kept);
    decodedOnce.set(message, kept);
    return kept;
  },
};

/**
 * LangChain messages as ctxloom messages — the one decoder of the Blackboard's `messages`,
 * for the session store and for runtime agents alike, the inverse of `toLangChain`: exact
 * for messages it wrote (the `ToolMessage`s of one tool message become that message again);
 * any other LangChain message (one a LangChain model or a user appended) is mapped as the
 * compile pipeline sees it (text, tool calls, one tool result per `ToolMessage`). Messages of
 * other kinds are left out.
 */
export function fromLangChain(messages: readonly BaseMessage[], memo?: DecodedMessages): Message[] {
  const out: Message[] = [];
  // The ids decoded so far, made when the first `partOf` is met (most histories have none).
  let decoded: Set<string> | undefined;
  for (const message of messages) {
    const extras = extrasOf(message);
    // Its parts are in the message it belongs to, unless that one is gone (trimmed by a user).
    if (extras.partOf !== undefined) {
      decoded ??= new Set(out.map((entry) => entry.id));
      if (decoded.has(extras.partOf)) continue;
    }
    const known = memo?.get(message);
    if (known !== undefined) {
      out.push(known);
      decoded?.add(known.id);
      continue;
    }
    const role = roleOf(message);
    if (role === undefined) continue;
    const mapped: Message = {
      id: message.id ?? '',
      role,
      content: extras.content === undefined ? derivedContent(message) : structuredClone(extras.content),
    };
    const name = extras.name ?? (role === 'tool' ? undefined : message.name);
    if (name !== undefined) mapped.name = name;
    if (extras.metadata !== undefined) mapped.metadata = structuredClone(extras.metadata);
    out.push(memo === undefined ? mapped : memo.keep(message, mapped));
    decoded?.add(mapped.id);
  }
  return out;
}

/**
 * A decoder of growing threads: `fromLangChain(messages, DECODED_ONCE)`, shared and read-only.
 * When `messages` extends the array it last decoded with the same first message (LangGraph's
 * reducers append), only what was added is decoded — unless an added message is a part of
 * another (whether its whole was decoded depends on all before it): then all of it is. Each
 * decoder keeps its own last array per thread (a caller decoding all of a thread and one decoding
 * its model messages do not undo each other's).
 */
export function threadDecoder(): (messages: readonly BaseMessage[]) => readonly Message[] {
  const decode = growingMemo<BaseMessage, Message[]>({
    full: (messages) => fromLangChain(messages, DECODED_ONCE),
    extend: (decoded, messages, from) => {
      const added = messages.slice(from);
      return added.some((message) => extrasOf(message).partOf !== undefined)
        ? undefined
        : decoded.concat(fromLangChain(added, DECODED_ONCE));
    },
  });
  return (messages) => decode(messages) ?? [];
}

function extrasOf(message: BaseMessage): CtxloomExtras {
  return (message.additional_kwargs?.[CTXLOOM_KWARG] ?? {}) as CtxloomExtras;
}

function roleOf(message: BaseMessage): Message['role'] | undefined {
  if (HumanMessage.isInstance(message)) return 'user';
  if (SystemMessage.isInstance(message)) return 'system';
  if (AIMessage.isInstance(message)) return 'assistant';
  if (ToolMessage.isInstance(message)) return 'tool';
  return undefined;
}

/** The content the LangChain fields alone say (what a message of a LangChain model maps to). */
export function derivedContent(message: BaseMessage): Message['content'] {
  if (AIMessage.isInstance(message)) {
    const calls = message.tool_calls ?? [];
    if (calls.length === 0) return message.text;
    const parts: Part[] = message.text.length > 0 ? [{ type: 'text', text: message.text }] : [];
    for (const call of calls) {
      parts.push({ type: 'tool-call', toolCallId: call.id ?? '', toolName: call.name, input: call.args });
    }
    return parts;
  }
  if (ToolMessage.isInstance(message)) {
    return [
      {
        type: 'tool-result',
        toolCallId: message.tool_call_id,
        toolName: message.name ?? '',
        output: { type: message.status === 'error' ? 'error-text' : 'text', value: message.text },
      },
    ];
  }
  return message.text;
}
