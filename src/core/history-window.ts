import type { ContextBlock } from './block.ts';
import { CtxloomError } from './errors.ts';
import { collectToolGroups } from './history.ts';
import type { Message } from './message.ts';
import type { DropReason, Selection } from './select.ts';

/**
 * Index of the first message of a window of the newest `maxMessages` messages (0: nothing
 * falls outside; `undefined`: no window). The window never starts inside a tool group: when
 * its first message is a tool result (or any member of a group whose call is older), the
 * start moves forward past it, so the window holds at most `maxMessages` messages and never
 * an orphaned tool result.
 */
export function historyWindowStart(messages: readonly Message[], maxMessages: number | undefined): number {
  if (maxMessages === undefined || messages.length <= maxMessages) return 0;
  let start = messages.length - maxMessages;
  const { groups } = collectToolGroups(messages);
  const older = new Set<string>();
  for (let index = 0; index < start; index++) {
    const group = groups.get(index);
    if (group !== undefined) older.add(group);
  }
  for (; start < messages.length; start++) {
    const group = groups.get(start);
    const inOlderGroup = group !== undefined && older.has(group);
    if (messages[start]?.role !== 'tool' && !inOlderGroup) break;
  }
  return start;
}

/** Throws `invalid-argument` unless `maxHistoryMessages` is absent or an integer ≥ 0. */
export function assertMaxHistoryMessages(maxMessages: number | undefined): void {
  if (maxMessages === undefined || (Number.isInteger(maxMessages) && maxMessages >= 0)) return;
  throw new CtxloomError({
    code: 'invalid-argument',
    message: `maxHistoryMessages must be an integer ≥ 0, got ${maxMessages}`,
    path: 'maxHistoryMessages',
  });
}

/**
 * Adds the history older than the window (`maxHistoryMessages`) to a selection: dropped with
 * reason `history-window` — after the layer's other drops, newest first — and counted in the
 * history layer's demand (a grant of 0 is listed when no history competed at all).
 */
export function withWindowDrops(
  selection: Selection,
  windowed: readonly ContextBlock[],
  maxMessages: number,
): Selection {
  if (windowed.length === 0) return selection;
  let tokens = 0;
  for (const block of windowed) tokens += block.tokens;
  const grant = selection.layers.find((layer) => layer.layer === 'history');
  if (grant !== undefined) grant.demandTokens += tokens;
  else selection.layers.push({ layer: 'history', grantTokens: 0, usedTokens: 0, demandTokens: tokens });
  const reason: DropReason = Object.freeze({ type: 'history-window', maxMessages });
  for (let index = windowed.length - 1; index >= 0; index--) {
    selection.dropped.push({ block: windowed[index] as ContextBlock, reason });
  }
  return selection;
}
