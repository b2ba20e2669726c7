import { countMessage, type Message, type TokenCounter } from '../core/index.ts';

/** Result of {@link clipMessagesToBudget}. */
export interface ClippedMessages {
  messages: Message[];
  tokens: number;
  /** Ids of the messages left out, oldest first. */
  droppedIds: string[];
}

/**
 * The clipping applied to every payload once `/compress` turned on `forceContextClipping`:
 * keeps the leading system messages and the last message, then as many of the newest other
 * messages as fit in `maxTokens`, dropping the oldest first. Whole messages only; order is
 * kept. When even the kept ones exceed the budget they are returned as they are (the caller's
 * rebuild step decides what that means).
 */
export function clipMessagesToBudget(
  messages: readonly Message[],
  options: { maxTokens: number; counter: TokenCounter },
): ClippedMessages {
  const { counter, maxTokens } = options;
  let head = 0;
  while (head < messages.length - 1 && messages[head]?.role === 'system') head++;
  const fixed = [...messages.slice(0, head), ...messages.slice(-1)];
  const middle = messages.slice(head, -1);
  let tokens = fixed.length === 0 ? counter.overhead.perRequest : counter.countMessages(fixed);
  const kept: Message[] = [];
  let cut = middle.length;
  for (let index = middle.length - 1; index >= 0; index--) {
    const message = middle[index] as Message;
    const cost = countMessage(counter, message);
    if (tokens + cost > maxTokens) break;
    tokens += cost;
    kept.unshift(message);
    cut = index;
  }
  const result = [...messages.slice(0, head), ...kept, ...messages.slice(-1)];
  return {
    messages: messages.length === 0 ? [] : result,
    tokens: counter.countMessages(result),
    droppedIds: middle.slice(0, cut).map((message) => message.id),
  };
}
