import type { ContextBlock } from './block.ts';
import { type MessageMeasure, measureMessages } from './measure-messages.ts';
import type { Message } from './message.ts';
import type { TokenCounter } from './tokens.ts';

/** The source name of history blocks (allocation ratios and reports use it). */
export const HISTORY_SOURCE = 'history';

/** Metadata carried by a history block. */
export interface HistoryBlockMetadata {
  message: Message;
  /** Position in the history, 0 = oldest. */
  index: number;
  /** True when the message carries a failed tool result. */
  error: boolean;
  [key: string]: unknown;
}

/**
 * Priority of the `index`-th of `count` messages: rises with recency, oldest 0.05, newest 1.
 * The L1 memory source ranks its own messages with it; the core's history uses
 * {@link positionPriority}, which does not move when a message is appended.
 */
export function recencyPriority(index: number, count: number): number {
  return count <= 1 ? 1 : 0.05 + (0.95 * index) / (count - 1);
}

/**
 * Priority of the history message at `position` (decision 065): 0 is the oldest message of
 * the history passed in (after the query is taken out), and a tool loop's steps continue
 * after the history's last position. 0.05 for the oldest, rising strictly toward 1. A
 * function of the position alone: appending a message, or a step, changes no earlier
 * message's priority, so a recompile reuses the blocks (and report summaries) it made
 * before. Selection depends only on the order within the history layer, which is recency
 * either way.
 */
export function positionPriority(position: number): number {
  // 1 − 0.95 / (position + 1), written so the oldest is exactly 0.05.
  return (position + 0.05) / (position + 1);
}

/**
 * Turns the chat history into one block per message in the `history` layer. Priority rises
 * with position ({@link positionPriority}; `offset` is the position of `history[0]`). An
 * assistant message with tool calls and the tool messages answering them share a `group`,
 * so they are kept or dropped together. Each
 * block's `tokens` is the message's own cost as sent (content plus per-message overhead).
 * History is never deduplicated: the fingerprint is the message id.
 */
export function historyToBlocks(
  history: readonly Message[],
  counter: TokenCounter,
  offset = 0,
): ContextBlock[] {
  const groups = collectToolGroups(history);
  // Measure everything first, then build the blocks: tokenising in one tight loop keeps the
  // tokenizer's tables in the CPU cache instead of interleaving them with block allocation.
  const measures = measureMessages(history, counter);
  return buildHistoryBlocks(
    history,
    (index) => measures[index] as MessageMeasure,
    (index) => groups.groups.get(index),
    undefined,
    (index) => positionPriority(offset + index),
  );
}

/**
 * History blocks from measures already taken: the `index`-th of `history.length` messages
 * gets `measureOf(index)` and the group `groupOf(index)` (see {@link historyToBlocks}).
 */
export function buildHistoryBlocks(
  history: readonly Message[],
  measureOf: (index: number) => MessageMeasure,
  groupOf: (index: number) => string | undefined,
  /** The `index`-th block's metadata when one was made before (a step reuses the history's); else a new one. */
  metadataOf?: (index: number) => HistoryBlockMetadata | undefined,
  /** The `index`-th block's priority; default {@link positionPriority} of `index`. */
  priorityOf: (index: number) => number = positionPriority,
): ContextBlock[] {
  return history.map((message, index) => {
    const measure = measureOf(index);
    const metadata: HistoryBlockMetadata = metadataOf?.(index) ?? { message, index, error: measure.error };
    return historyBlock(measure, metadata, priorityOf(index), groupOf(index));
  });
}

/** One history block: the message's measure, its metadata, priority and tool group. */
export function historyBlock(
  measure: MessageMeasure,
  metadata: HistoryBlockMetadata,
  priority: number,
  group: string | undefined,
): ContextBlock {
  const block: ContextBlock = {
    id: measure.blockId,
    layer: 'history',
    source: HISTORY_SOURCE,
    content: measure.text,
    tokens: measure.tokens,
    priority,
    fingerprint: measure.blockId,
    metadata,
  };
  if (group !== undefined) block.group = group;
  return block;
}

/** Tool groups of a run of messages: message index → group id, and tool call id → index of its call. */
export interface ToolGroups {
  groups: Map<number, string>;
  owners: Map<string, number>;
  /** Tool calls no later result answers, by id: the index of their message (with `earlier`: its ones too). */
  unanswered: Map<string, number>;
  /** Results that answer no call before them: their message's index and the call id they name (with `earlier`: its ones first). */
  orphans: { index: number; toolCallId: string }[];
}

/** Tool groups of messages without tool parts (nothing grouped, nothing unpaired). */
export function noToolGroups(): ToolGroups {
  return { groups: new Map(), owners: new Map(), unanswered: new Map(), orphans: [] };
}

/**
 * Groups tool calls with the results that answer them: `messages[i]` has index `offset + i`.
 * With `earlier` (the groups of the messages before `offset`, read only), a result may answer
 * a call among them and joins that call's group. The group id is `tools:<id of the call's message>`.
 */
export function collectToolGroups(
  messages: readonly Message[],
  offset = 0,
  earlier?: Readonly<ToolGroups>,
): ToolGroups {
  const groups = new Map<number, string>();
  const owners = new Map<string, number>();
  // Read in the same walk: a call left unanswered or a result without its call is a request
  // every provider refuses (the compile warns of each, decision 087).
  const unanswered = new Map(earlier?.unanswered);
  const orphans = earlier === undefined ? [] : earlier.orphans.slice();
  messages.forEach((message, at) => {
    if (typeof message.content === 'string') return;
    const index = offset + at;
    for (const part of message.content) {
      if (part.type === 'tool-call') {
        owners.set(part.toolCallId, index);
        groups.set(index, `tools:${message.id}`);
        unanswered.set(part.toolCallId, index);
      } else if (part.type === 'tool-result') {
        const owner = owners.get(part.toolCallId) ?? earlier?.owners.get(part.toolCallId);
        if (owner === undefined) {
          orphans.push({ index, toolCallId: part.toolCallId });
          continue;
        }
        unanswered.delete(part.toolCallId);
        const group =
          groups.get(owner) ?? earlier?.groups.get(owner) ?? `tools:${messages[owner - offset]?.id ?? owner}`;
        if (owner >= offset) groups.set(owner, group);
        groups.set(index, group);
      }
    }
  });
  return { groups, owners, unanswered, orphans };
}

/**
 * The index of the first message after a persisted summary's coverage: every message up to
 * and including `throughMessageId` (0 when it is absent or not in `messages`), and the tool
 * results right after it — their calls are covered, and a result sent without its call is
 * refused by every provider (the history window moves past them the same way).
 */
export function coverageEnd(messages: readonly Message[], throughMessageId: string | undefined): number {
  if (throughMessageId === undefined) return 0;
  let end = messages.findIndex((message) => message.id === throughMessageId) + 1;
  if (end === 0) return 0;
  while (messages[end]?.role === 'tool') end++;
  return end;
}

/**
 * The history as blocks, minus the messages a persisted summary already covers
 * ({@link coverageEnd}).
 */
export function historyBlocks(
  history: readonly Message[],
  counter: TokenCounter,
  throughMessageId: string | undefined,
  /** Position of `history[0]` in the whole history (see {@link positionPriority}). */
  offset = 0,
): { blocks: ContextBlock[]; covered: ContextBlock[] } {
  const end = coverageEnd(history, throughMessageId);
  if (end === 0) return { blocks: historyToBlocks(history, counter, offset), covered: [] };
  return {
    blocks: historyToBlocks(history.slice(end), counter, offset + end),
    covered: historyToBlocks(history.slice(0, end), counter, offset),
  };
}
