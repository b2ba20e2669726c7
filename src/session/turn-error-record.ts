import type { CtxloomError, Message, TurnError } from '../core/index.ts';

/** Options of {@link turnErrorRecord}. */
export interface TurnErrorRecordOptions {
  /** Stored id of the record. */
  id: string;
  /** Id of the turn's UI message (the answer it belongs to). */
  uiMessageId: string;
  /** Id of the turn's user message. */
  turnId: string;
  error: CtxloomError;
  /** ISO-8601 time. */
  createdAt: string;
  /** More metadata (the compile summary `context` when nothing else of the answer is stored). */
  metadata?: Record<string, unknown>;
}

/**
 * What a failed turn stores after whatever of its answer arrived: an `assistant` entry with
 * empty content and `metadata.turnError` (`{ code, message, turnId }`), so a reload shows the
 * error with the turn. It is never sent to a model (core's `conversationMessages` leaves it
 * out, and the question of a turn that got no answer with it). Pure.
 */
export function turnErrorRecord(options: TurnErrorRecordOptions): Message {
  const turnError: TurnError = {
    code: options.error.code,
    message: options.error.message,
    turnId: options.turnId,
  };
  return {
    id: options.id,
    role: 'assistant',
    content: '',
    metadata: {
      ...options.metadata,
      createdAt: options.createdAt,
      uiMessageId: options.uiMessageId,
      turnError,
    },
  };
}
