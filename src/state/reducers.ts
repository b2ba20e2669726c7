import type { MapReduceResult } from './types.ts';

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
