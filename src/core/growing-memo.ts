/** How many leading items `a` and `b` share (compared by identity). */
export function sharedPrefix(a: readonly unknown[], b: readonly unknown[]): number {
  const limit = Math.min(a.length, b.length);
  let same = 0;
  while (same < limit && a[same] === b[same]) same++;
  return same;
}

/** Whether `items` begins with the very objects of `prefix` (compared by identity). */
export function startsWithSame(items: readonly unknown[], prefix: readonly unknown[]): boolean {
  return prefix.length <= items.length && sharedPrefix(items, prefix) === prefix.length;
}

/**
 * A result kept for arrays that grow by appending (a thread's messages, as LangGraph's reducers
 * and the session store hand them out): per first item, the last array and its result. The same
 * array again returns that result; an array that begins with the last one's items is handed to
 * `extend` with where the new items start (undefined: made in `full`). An array that holds the
 * last one's objects only up to `kept` (a message replaced by a copy, the array shorter) is
 * handed to `rewind` — the last result cut back to its first `kept` items — then to `extend`
 * from there, when `rewind` is given and returns a result; any other is made in `full`. Results
 * are shared: callers must not change them. An empty array gives undefined.
 */
export function growingMemo<T extends object, R>(make: {
  full: (items: readonly T[]) => R;
  extend: (last: R, items: readonly T[], from: number) => R | undefined;
  rewind?: (last: R, source: readonly T[], kept: number) => R | undefined;
}): (items: readonly T[]) => R | undefined {
  const last = new WeakMap<T, { source: readonly T[]; result: R }>();
  return (items) => {
    const first = items[0];
    if (first === undefined) return undefined;
    const known = last.get(first);
    if (known?.source === items) return known.result;
    let made: R | undefined;
    if (known !== undefined) {
      const kept = sharedPrefix(items, known.source);
      const base =
        kept === known.source.length ? known.result : make.rewind?.(known.result, known.source, kept);
      if (base !== undefined) made = make.extend(base, items, kept);
    }
    const result = made ?? make.full(items);
    last.set(first, { source: items, result });
    return result;
  };
}
