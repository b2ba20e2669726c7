import type { Message } from './message.ts';

/**
 * What a failed turn stores instead of an answer: the `metadata.turnError` of its error
 * record (an `assistant` entry with empty content, shown with the turn, never sent to a model).
 */
export interface TurnError {
  /** The `CtxloomError` code, e.g. `model-error`. */
  code: string;
  /** One line: what failed, e.g. `the model call failed: Rate limit reached (HTTP 429)`. */
  message: string;
  /** Id of the turn's user message. */
  turnId: string;
}

/** The turn error a stored message records, if it is a failed turn's error record. */
export function turnErrorOf(message: Message): TurnError | undefined {
  const value = message.metadata?.turnError as Partial<TurnError> | null | undefined;
  return typeof value?.message === 'string' && typeof value.turnId === 'string'
    ? {
        code: typeof value.code === 'string' ? value.code : 'model-error',
        message: value.message,
        turnId: value.turnId,
      }
    : undefined;
}

/**
 * True for a stored message a model may be sent: not a chat command or its answer
 * (`metadata.command`), not a failed turn's error record (`metadata.turnError`), and not an
 * assistant message with nothing in it (a failed or stopped turn of an older version stored
 * one; providers reject or misread `{ role: 'assistant', content: '' }`). Pure.
 */
export function isModelMessage(message: Message): boolean {
  if (message.metadata?.command !== undefined || message.metadata?.turnError !== undefined) return false;
  if (message.role !== 'assistant') return true;
  const content = message.content;
  if (typeof content === 'string') return content !== '';
  return content.some((part) => part.type !== 'text' || part.text !== '');
}

/** Where {@link scanConversation} is after some messages: what the next ones are read against. */
export interface ConversationScan {
  /** The last user message's id (not a chat command's). */
  lastUserId: string | undefined;
  /** Whether a model message followed it. */
  answered: boolean;
  /** Questions of turns that failed before anything of their answer was stored. */
  unanswered: Set<string>;
}

/** Reads `messages` on from `scan` (default: the start of a record); returns where it ends. Pure. */
export function scanConversation(
  messages: readonly Message[],
  scan: Readonly<ConversationScan> = { lastUserId: undefined, answered: false, unanswered: new Set() },
): ConversationScan {
  let { lastUserId, answered } = scan;
  const unanswered = new Set(scan.unanswered);
  for (const message of messages) {
    if (message.role === 'user' && message.metadata?.command === undefined) {
      lastUserId = message.id;
      answered = false;
    } else if (turnErrorOf(message)?.turnId === lastUserId && lastUserId !== undefined && !answered) {
      unanswered.add(lastUserId);
    } else if (message.role !== 'user' && isModelMessage(message)) {
      answered = true;
    }
  }
  return { lastUserId, answered, unanswered };
}

/**
 * The stored record as conversation: the messages {@link isModelMessage} keeps, less the
 * question of every turn that failed before anything of its answer was stored (its error
 * record follows the question with no model message between) — so nothing of a failed turn
 * is sent again, and asking the same question again sends it once. Pure.
 */
export function conversationMessages(messages: readonly Message[]): Message[] {
  const { unanswered } = scanConversation(messages);
  return messages.filter((message) => isModelMessage(message) && !unanswered.has(message.id));
}
