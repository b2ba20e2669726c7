import type { BaseMessage } from '@langchain/core/messages';
import { isModelMessage } from '../../core/conversation-messages.ts';
import type { Message } from '../../core/message.ts';
import type { StateBuilder } from '../../state/index.ts';
import {
  applyCuration,
  type CurationEvent,
  foldCurationEvents,
  type PlaceholderLocale,
} from '../../workspace/index.ts';
import { fromLangChain } from './from-langchain.ts';

/**
 * The Blackboard field holding a session's curation events (dismiss / exclude / restore), on
 * a session thread (`createSessionBlackboard` of `ctxloom/session`). An agent node compiles
 * the history with them applied, as the notebook's compile does.
 */
export const CURATION_LOG_KEY = 'session_curation';

/**
 * Key of `additional_kwargs` where the checkpoint session store keeps what a LangChain message
 * cannot say of a ctxloom message (exact parts, name, metadata such as `command`).
 */
export const CTXLOOM_KWARG = 'ctxloom';

/**
 * The history an agent compiles from the Blackboard's `messages`: chat commands (`/compress`
 * and its answer, stored with `metadata.command` by the session engine), failed turns' error
 * records (`metadata.turnError`) and empty assistant messages are left out — they are for
 * ctxloom and its reader, never for a model — and, on a session thread, the session's curation is
 * applied (dismissed and excluded messages become placeholders), exactly as the session
 * engine's compile does for the same thread.
 */
export function agentHistory(sb: StateBuilder, locale: PlaceholderLocale = 'zh'): Message[] {
  const stored = sb.messages.snapshot();
  const conversation = stored.some(isForReader) ? stored.filter((message) => !isForReader(message)) : stored;
  const history = fromLangChain(conversation).filter(isModelMessage);
  if (!sb.hasExtension(CURATION_LOG_KEY)) return history;
  const events = sb.getExtension<CurationEvent[]>(CURATION_LOG_KEY) ?? [];
  return events.length === 0 ? history : applyCuration(history, foldCurationEvents(events), locale);
}

function isForReader(message: BaseMessage): boolean {
  const extras = message.additional_kwargs?.[CTXLOOM_KWARG] as
    | { metadata?: { command?: unknown; turnError?: unknown } }
    | undefined;
  return extras?.metadata?.command !== undefined || extras?.metadata?.turnError !== undefined;
}
