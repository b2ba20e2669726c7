/** Whether `items` begins with the very objects of `prefix` (compared by identity). */
export function startsWithSame(items: readonly unknown[], prefix: readonly unknown[]): boolean {
  if (prefix.length > items.length) return false;
  for (let index = 0; index < prefix.length; index++) if (items[index] !== prefix[index]) return false;
  return true;
}

/**
 * A result kept for arrays that grow by appending (a thread's messages, as LangGraph's reducers
 * and the session store hand them out): per first item, the last array and its result. The same
 * array again returns that result; an array that begins with the last one's items is handed to
 * `extend` with where the new items start (undefined: made in `full`); any other is made in
 * `full`. Results are shared: callers must not change them. An empty array gives undefined.
 */
export function growingMemo<T extends object, R>(make: {
  full: (items: readonly T[]) => R;
  extend: (last: R, items: readonly T[], from: number) => R | undefined;
}): (items: readonly T[]) => R | undefined {
  const last = new WeakMap<T, { source: readonly T[]; result: R }>();
  return (items) => {
    const first = items[0];
    if (first === undefined) return undefined;
    const known = last.get(first);
    if (known?.source === items) return known.result;
    const extended =
      known !== undefined && startsWithSame(items, known.source)
        ? make.extend(known.result, items, known.source.length)
        : undefined;
    const result = extended ?? make.full(items);
    last.set(first, { source: items, result });
    return result;
  };
}
