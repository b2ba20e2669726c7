/**
 * `next` with each message that is structurally equal to the message of the same id in
 * `previous` replaced by that previous object, so a memoised view of it (compared by identity)
 * does not render again. Equality is JSON's: a property whose value is `undefined` counts as
 * absent. `previous` itself when every message is kept in the same order. Pure: neither array
 * is changed.
 *
 * @example
 * // After one more turn, the reload renders the new messages, not the whole history.
 * setMessages((current) => keepUnchanged(current, reloaded));
 */
export function keepUnchanged<T extends { id: string }>(previous: T[], next: T[]): T[] {
  const byId = new Map<string, T>();
  for (const message of previous) byId.set(message.id, message);
  let same = previous.length === next.length;
  const result = next.map((message, index) => {
    const kept = byId.get(message.id);
    if (kept === undefined || !equalJson(kept, message)) {
      same = false;
      return message;
    }
    if (previous[index] !== kept) same = false;
    return kept;
  });
  return same ? previous : result;
}

/** Deep equality of JSON data (plain objects, arrays, primitives); `undefined` properties are absent. */
function equalJson(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let index = 0; index < a.length; index++) if (!equalJson(a[index], b[index])) return false;
    return true;
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  let keys = 0;
  for (const key in left) {
    if (!Object.hasOwn(left, key) || left[key] === undefined) continue;
    if (!Object.hasOwn(right, key) || !equalJson(left[key], right[key])) return false;
    keys++;
  }
  for (const key in right) if (Object.hasOwn(right, key) && right[key] !== undefined) keys--;
  return keys === 0;
}
