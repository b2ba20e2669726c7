import type { Message } from './message.ts';

/** Freezes `value` and every object under it (a value a store or a memo shares between callers). */
export function deepFreeze(value: unknown): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const child of Object.values(value)) deepFreeze(child);
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
