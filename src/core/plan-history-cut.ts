import type { Message } from './message.ts';

/** Input of {@link planHistoryCut}. */
export interface PlanHistoryCutInput {
  /** The messages after the current cut (what is sent verbatim now), oldest first. */
  live: readonly Message[];
  /** Tokens each message costs as sent (same order as `live`). */
  tokens: readonly number[];
  /** Tokens the recent history may use in this call. */
  roomTokens: number;
  /** Share of `roomTokens` the recent history keeps after a move, 0 < r ≤ 1 (decision 040). */
  keepRatio: number;
}

/**
 * Where a long session's cut moves (decision 040): the number of `live` messages that pass
 * it — the fewest such that what stays takes at most `keepRatio × roomTokens`, and what stays
 * starts at a user message (never inside a turn, so never between a tool call and its
 * result). `live.length` when no user message qualifies: everything passes. 0 when nothing
 * needs to move. The cut only moves forward: callers pass the messages after the stored cut.
 */
export function planHistoryCut(input: PlanHistoryCutInput): number {
  const { live, tokens } = input;
  const target = Math.max(0, Math.floor(input.roomTokens * input.keepRatio));
  let total = 0;
  for (const count of tokens) total += count;
  if (total <= input.roomTokens) return 0;
  let remaining = total;
  for (let index = 0; index < live.length; index++) {
    if (index > 0 && live[index]?.role === 'user' && remaining <= target) return index;
    remaining -= tokens[index] ?? 0;
  }
  return live.length;
}
