import type { Message } from '../core/index.ts';
import { messageParts } from '../core/message.ts';

/** Consecutive messages that belong together: a user message and everything answering it. */
export interface Turn {
  /** Id of the turn's first message. */
  id: string;
  messages: Message[];
}

/**
 * Splits a history into turns: a new turn starts at every `user` message (a leading run of
 * system/assistant messages forms its own turn). A tool call and its result are always in the
 * same turn, even when a user message sits between them (the result's turn is merged into the
 * call's), so trimming by whole turns never separates a call from its result.
 */
export function groupTurns(messages: readonly Message[]): Turn[] {
  const turns: Turn[] = [];
  const callTurn = new Map<string, Turn>();
  for (const message of messages) {
    let turn = turns.at(-1);
    if (turn === undefined || message.role === 'user') {
      turn = { id: message.id, messages: [] };
      turns.push(turn);
    }
    turn.messages.push(message);
    for (const part of messageParts(message)) {
      if (part.type === 'tool-call') callTurn.set(part.toolCallId, turn);
      if (part.type === 'tool-result') {
        const owner = callTurn.get(part.toolCallId);
        if (owner !== undefined && owner !== turn) mergeFrom(turns, owner);
      }
    }
  }
  return turns;
}

// Folds every turn after `owner` into it (a call's result arrived after a later user message).
function mergeFrom(turns: Turn[], owner: Turn): void {
  const start = turns.indexOf(owner);
  const later = turns.splice(start + 1);
  for (const turn of later) owner.messages.push(...turn.messages);
}
