import type { Message } from './message.ts';
import type { TokenCounter } from './tokens.ts';

/**
 * Freezes `value` and every object under it (a value a store or a memo shares between callers).
 * An object already frozen is taken as frozen whole. A loop, not a recursion: a tool input
 * nested however deep freezes without exhausting the stack. A typed array or `DataView`
 * cannot be frozen (`Object.freeze` throws on one with elements): it is left as it is.
 */
export function deepFreeze(value: unknown): void {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next !== 'object' || next === null || Object.isFrozen(next) || ArrayBuffer.isView(next))
      continue;
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

/** Values kept per counter and message, for frozen messages only (see {@link frozenMessageMemo}). */
export interface FrozenMessageMemo<V> {
  get(counter: TokenCounter, message: Message): V | undefined;
  /** Keeps `value` when `message` is frozen ({@link isFrozenMessage}); a message that may change is not kept. */
  set(counter: TokenCounter, message: Message, value: V): void;
}

/**
 * A memo of what a message costs or reads as under a counter: a stored message is the same
 * frozen value from call to call of a long session, so what is derived from it is derived once.
 */
export function frozenMessageMemo<V>(): FrozenMessageMemo<V> {
  const byCounter = new WeakMap<TokenCounter, WeakMap<Message, V>>();
  return {
    get: (counter, message) => byCounter.get(counter)?.get(message),
    set(counter, message, value) {
      if (!isFrozenMessage(message)) return;
      let byMessage = byCounter.get(counter);
      if (byMessage === undefined) {
        byMessage = new WeakMap();
        byCounter.set(counter, byMessage);
      }
      byMessage.set(message, value);
    },
  };
}
