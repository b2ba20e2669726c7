import type { MapReduceResult, Timeline } from './types.ts';

function flatten<T>(writes: readonly (T | readonly T[])[]): T[] {
  const flat: T[] = [];
  for (const write of writes) {
    if (Array.isArray(write)) flat.push(...(write as readonly T[]));
    else flat.push(write as T);
  }
  return flat;
}

/**
 * Batch reducer of `mapreduce_results`: appends, keeping the first result per `taskId`, so
 * a worker that runs again after a restore or a retry never adds a second result.
 * Batching-invariant (as LangGraph's `DeltaChannel` requires): keep-first union is
 * associative.
 */
export function appendResultsReducer(
  state: MapReduceResult[],
  writes: (MapReduceResult | MapReduceResult[])[],
): MapReduceResult[] {
  const seen = new Set(state.map((result) => result.taskId));
  const next = [...state];
  for (const result of flatten(writes)) {
    if (seen.has(result.taskId)) continue;
    seen.add(result.taskId);
    next.push(result);
  }
  return next;
}

/**
 * Batch reducer of `processed_inputs` (the idempotency ledger): a set union in first-seen
 * order. Survives a messages `REMOVE_ALL` compaction because it is a separate channel.
 */
export function ledgerReducer(state: string[], writes: (string | string[])[]): string[] {
  const seen = new Set(state);
  const next = [...state];
  for (const id of flatten(writes)) {
    if (seen.has(id)) continue;
    seen.add(id);
    next.push(id);
  }
  return next;
}

/**
 * Batch reducer of `timeline` (a delta channel): appends the entries of each write in order.
 * `timeline.flush()` writes only the entries buffered in the node, so the stored value after
 * a step equals what seed 002's whole-value write-back (整体替换) would have written: the
 * stored entries followed by the node's. Concatenation is batching-invariant.
 */
export function timelineReducer(state: Timeline, writes: (Timeline | Timeline[])[]): Timeline {
  const entries = [...(state?.entries ?? [])];
  for (const write of flatten(writes)) entries.push(...(write?.entries ?? []));
  return { entries };
}
