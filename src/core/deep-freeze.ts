import type { Message } from './message.ts';

/**
 * Freezes `value` and every object under it (a value a store or a memo shares between callers).
 * An object already frozen is taken as frozen whole. A loop, not a recursion: a tool input
 * nested however deep freezes without exhausting the stack.
 */
export function deepFreeze(value: unknown): void {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next !== 'object' || next === null || Object.isFrozen(next)) continue;
    Object.freeze(next);
    for (const child of Object.values(next)) pending.push(child);
  }
}

/**
 * Whether `message` cannot change under a memo kept by message object: frozen, with its
 * content and each part frozen (a stored message is, `deepFreeze`d by its store).
 */
export function isFrozenMessage(message: Message): boolean {
  if (!Object.isFrozen(message)) return false;
  const { content } = message;
  return (
    typeof content === 'string' ||
    (Object.isFrozen(content) && content.every((part) => Object.isFrozen(part)))
  );
}
