import type { ContextBlock } from './block.ts';
import { fingerprintContent } from './fingerprint.ts';
import { isErrorResult, type Message, messageParts, partText } from './message.ts';
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
 * Turns the chat history into one block per message in the `history` layer. Priority rises
 * with recency (oldest 0.05, newest 1). An assistant message with tool calls and the tool
 * messages answering them share a `group`, so they are kept or dropped together. Each
 * block's `tokens` is the message's own cost as sent (content plus per-message overhead).
 */
export function historyToBlocks(history: readonly Message[], counter: TokenCounter): ContextBlock[] {
  const groups = toolGroups(history);
  const count = history.length;
  return history.map((message, index) => {
    const parts = messageParts(message);
    const content = parts.map(partText).join('\n');
    const metadata: HistoryBlockMetadata = { message, index, error: parts.some(isErrorResult) };
    const block: ContextBlock = {
      id: `history:${message.id}`,
      layer: 'history',
      source: HISTORY_SOURCE,
      content,
      tokens: counter.countMessages([message]) - counter.overhead.perRequest,
      priority: count === 1 ? 1 : 0.05 + (0.95 * index) / (count - 1),
      // Per message, not per content: two turns saying the same thing are both part of the conversation.
      fingerprint: fingerprintContent(`history\u0000${message.id}\u0000${content}`),
      metadata,
    };
    const group = groups.get(index);
    if (group !== undefined) block.group = group;
    return block;
  });
}

/** Maps message index → group id for tool calls and the results that answer them. */
function toolGroups(history: readonly Message[]): Map<number, string> {
  const groups = new Map<number, string>();
  const callOwner = new Map<string, number>();
  history.forEach((message, index) => {
    for (const part of messageParts(message)) {
      if (part.type === 'tool-call') {
        callOwner.set(part.toolCallId, index);
        groups.set(index, `tools:${history[index]?.id ?? index}`);
      } else if (part.type === 'tool-result') {
        const owner = callOwner.get(part.toolCallId);
        if (owner !== undefined) {
          const group = groups.get(owner) ?? `tools:${history[owner]?.id ?? owner}`;
          groups.set(owner, group);
          groups.set(index, group);
        }
      }
    }
  });
  return groups;
}

/**
 * The history as blocks, minus the messages a persisted summary already covers: every
 * message up to and including `throughMessageId` (when that id is in the history).
 */
export function historyBlocks(
  history: readonly Message[],
  counter: TokenCounter,
  throughMessageId: string | undefined,
): { blocks: ContextBlock[]; covered: ContextBlock[] } {
  const cut =
    throughMessageId === undefined ? -1 : history.findIndex((message) => message.id === throughMessageId);
  if (cut < 0) return { blocks: historyToBlocks(history, counter), covered: [] };
  return {
    blocks: historyToBlocks(history.slice(cut + 1), counter),
    covered: historyToBlocks(history.slice(0, cut + 1), counter),
  };
}
