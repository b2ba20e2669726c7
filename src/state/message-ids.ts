import { hashText } from '../core/fingerprint.ts';

/**
 * The id of the HumanMessage for one user input: `human:<session>:<input>` — the same on
 * every delivery of the input, so a re-sent or replayed input merges instead of
 * duplicating. Long or unusual ids are hashed to keep ids short and printable.
 */
export function humanMessageId(options: { sessionId: string; inputId: string }): string {
  const raw = `${options.sessionId}:${options.inputId}`;
  return /^[\w.:-]{1,120}$/.test(raw) ? `human:${raw}` : `human:${hashText(raw)}`;
}

/** The ledger key of one input: unique per session. */
export function inputKey(options: { sessionId: string; inputId: string }): string {
  return `${options.sessionId}:${options.inputId}`;
}
