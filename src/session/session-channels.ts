import { DeltaValue, type StateSchemaField } from '@langchain/langgraph';
import { z } from 'zod';
import { CALL_LOG_KEY } from '../runtime/agents/node-factory.ts';
import { CURATION_LOG_KEY } from '../runtime/agents/session-history.ts';
import { compressionExtensions } from '../runtime/compression/compression-blackboard.ts';
import { createBlackboard } from '../state/index.ts';
import type { CallRecord, CurationEvent, SessionCompression } from './session-store.ts';

/**
 * The Blackboard extension fields the checkpoint session store adds to a thread: curation
 * events and the call log are delta channels (a checkpoint stores only what a write
 * appended), the compression record — summary with its coverage, seed 004's structured
 * state, revision — is a plain field written by `/compress` only.
 */
export const SESSION_KEYS = {
  curation: CURATION_LOG_KEY,
  calls: CALL_LOG_KEY,
  compression: 'session_compression',
} as const;

/** The value of the {@link SESSION_KEYS}`.compression` field: the port's compression as saved. */
export type StoredCompression = SessionCompression;

// The adapter validates what it writes; the channels take values as they are (a zod object
// schema here would strip fields a newer writer added).
const list = z.array(z.unknown());

/** Appends in order (associative, as delta channels require). */
function appendReducer(state: unknown[], writes: unknown[][]): unknown[] {
  return writes.length === 0 ? state : [...state, ...writes.flat()];
}

/** Appends in order and keeps the newest `capacity` (associative: lastN(lastN(a)+b) = lastN(a+b)). */
function boundedReducer(capacity: number) {
  return (state: unknown[], writes: unknown[][]): unknown[] => {
    if (writes.length === 0) return state;
    const next = [...state, ...writes.flat()];
    return next.length > capacity ? next.slice(-capacity) : next;
  };
}

/** Options of {@link sessionExtensions}. */
export interface SessionExtensionsOptions {
  /** Call records kept (≥ 1). */
  callCapacity: number;
  /** As in `createBlackboard`. Default 500. */
  snapshotFrequency?: number;
}

/** The fields of {@link SESSION_KEYS}, for `createBlackboard({ extensions })`. */
export function sessionExtensions(options: SessionExtensionsOptions): Record<string, StateSchemaField> {
  const snapshotFrequency = options.snapshotFrequency ?? 500;
  const delta = (reducer: (state: unknown[], writes: unknown[][]) => unknown[]) =>
    new DeltaValue(
      list.default(() => []),
      { inputSchema: list, reducer, snapshotFrequency },
    ) as unknown as StateSchemaField;
  return {
    [SESSION_KEYS.curation]: delta(appendReducer),
    [SESSION_KEYS.calls]: delta(boundedReducer(options.callCapacity)),
    [SESSION_KEYS.compression]: z.unknown().nullable().default(null) as unknown as StateSchemaField,
  };
}

/** Options of {@link createSessionBlackboard}. */
export interface SessionBlackboardOptions extends SessionExtensionsOptions {
  /** More application fields the threads carry (a write never drops a field it knows). */
  extensions?: Record<string, StateSchemaField>;
}

/**
 * The Blackboard of a session thread: ctxloom's Blackboard, the compression fields of
 * `createCompressionBlackboard` (so a thread a compression process wrote keeps them) and
 * the {@link SESSION_KEYS} fields.
 */
export function createSessionBlackboard(options: SessionBlackboardOptions) {
  const snapshot =
    options.snapshotFrequency === undefined ? {} : { snapshotFrequency: options.snapshotFrequency };
  return createBlackboard({
    ...snapshot,
    extensions: {
      ...compressionExtensions(snapshot),
      ...sessionExtensions(options),
      ...options.extensions,
    },
  });
}

export type { CallRecord, CurationEvent };
