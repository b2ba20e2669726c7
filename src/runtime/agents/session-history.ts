import type { BaseMessage } from '@langchain/core/messages';
import { getConfig } from '@langchain/langgraph';
import { type ConversationScan, isModelMessage, scanConversation } from '../../core/conversation-messages.ts';
import { growingMemo } from '../../core/growing-memo.ts';
import type { Message } from '../../core/message.ts';
import { threadDecoder } from '../../langchain/from-langchain.ts';
import type { StateBuilder } from '../../state/index.ts';
import {
  applyCuration,
  type CurationEvent,
  foldCurationEvents,
  type PlaceholderLocale,
  type SessionLayers,
} from '../../workspace/index.ts';

/**
 * The Blackboard field holding a session's curation events (dismiss / exclude / restore), on
 * a session thread (`createSessionBlackboard` of `ctxloom/session`). An agent node compiles
 * the history with them applied, as the notebook's compile does.
 */
export const CURATION_LOG_KEY = 'session_curation';

/**
 * Key of a graph run's `configurable` holding the placeholder language of the session's
 * curation (`'zh' | 'en'`): the session engine sets it from the session manifest's
 * `chatHistory.placeholderLocale` for every process turn, and agent calls made in that run
 * write their placeholders in it.
 */
export const PLACEHOLDER_LOCALE_KEY = 'ctxloom_placeholder_locale';

/**
 * Key of a graph run's `configurable` holding the session's manifest layers
 * (`SessionLayers` of `ctxloom/workspace`: prompts, profile and injection blocks, retrieval,
 * budget, composition, the turn's message with its references merged): the session engine
 * sets it for a process turn of a session that has a workspace, and agent calls made in that
 * run compile them with their own prompt and Blackboard layers, under the session's budget
 * (capped by the agent's window) and composition order (decisions 053, 062), and — in a long
 * session — the session's history (`history`: its stored cut, rolling summary and recall, the
 * cut moved by the chat turn's rule; decision 066).
 */
export const SESSION_LAYERS_KEY = 'ctxloom_session_layers';

/** The session's manifest layers given to the graph run this code runs in, when it has them. */
export function sessionLayersOfRun(): SessionLayers | undefined {
  const value = getConfig()?.configurable?.[SESSION_LAYERS_KEY] as SessionLayers | undefined;
  return value !== undefined && typeof value === 'object' && Array.isArray(value.blocks) ? value : undefined;
}

/** The placeholder language of the graph run this code runs in, when the run says one. */
export function placeholderLocaleOfRun(): PlaceholderLocale | undefined {
  const value = getConfig()?.configurable?.[PLACEHOLDER_LOCALE_KEY];
  return value === 'zh' || value === 'en' ? value : undefined;
}

/**
 * The history an agent compiles from the Blackboard's `messages`, decoded by the session
 * store's exact codec (`fromLangChain`) and kept as the notebook's compile keeps it
 * (core's `conversationMessages`): chat commands (`/compress` and its answer, stored with
 * `metadata.command` by the session engine), failed turns' error records
 * (`metadata.turnError`) with the question they failed on, and empty assistant messages are
 * left out — they are for ctxloom and its reader, never for a model — and, on a session thread, the session's curation is
 * applied (dismissed and excluded messages become placeholders), exactly as the session
 * engine's compile does for the same thread, in the placeholder language `locale` (the session
 * manifest's `chatHistory.placeholderLocale`).
 */
export function agentHistory(sb: StateBuilder, locale: PlaceholderLocale): Message[] {
  // The session store's decoder: a message the engine stored reads back exactly as the
  // notebook's compile reads it (parts, tool results, metadata); an agent's own as LangChain says it.
  // Decoded once per LangChain message and shared frozen, with the session store's loads too.
  const history = decodedConversation(sb.messages.modelMessages()).slice();
  if (!sb.hasExtension(CURATION_LOG_KEY)) return history;
  const events = sb.getExtension<CurationEvent[]>(CURATION_LOG_KEY) ?? [];
  return events.length === 0 ? history : applyCuration(history, foldCurationEvents(events), locale);
}

/** The agent's decoder of a thread's model messages. */
const decodeModelMessages = threadDecoder();

/** A thread's conversation with where its scan ended. */
interface ConversationMemo {
  conversation: Message[];
  scan: ConversationScan;
}

/**
 * The conversation of a thread's decoded model messages, by its first one: extended by the
 * decoded messages it adds (each message decodes to one shared object) — unless an added message
 * ends a turn as failed (the turn's question, read before, leaves the conversation): then read
 * whole.
 */
const conversationOf = growingMemo<Message, ConversationMemo>({
  full: (decoded) => {
    const scan = scanConversation(decoded);
    return { conversation: modelOnly(decoded, scan), scan };
  },
  extend: (last, decoded, from) => {
    const added = decoded.slice(from);
    const scan = scanConversation(added, last.scan);
    if (scan.unanswered.size !== last.scan.unanswered.size) return undefined;
    return { conversation: last.conversation.concat(modelOnly(added, scan)), scan };
  },
});

function modelOnly(messages: readonly Message[], scan: ConversationScan): Message[] {
  return messages.filter((message) => isModelMessage(message) && !scan.unanswered.has(message.id));
}

/** `conversationMessages(fromLangChain(messages, DECODED_ONCE))`, shared and read-only. */
function decodedConversation(messages: readonly BaseMessage[]): readonly Message[] {
  return conversationOf(decodeModelMessages(messages))?.conversation ?? [];
}
