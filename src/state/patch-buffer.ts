import { type BaseMessage, RemoveMessage } from '@langchain/core/messages';
import { Overwrite, REMOVE_ALL_MESSAGES } from '@langchain/langgraph';
import { CtxloomError } from '../core/errors.ts';
import { REDUCER_KEYS } from './module-fields.ts';
import type { MapReduceResult, TimelineEntry } from './types.ts';

/** A node's state update as LangGraph takes it (`Command({ update })` or a returned object). */
export type StatePatch = Record<string, unknown>;

/**
 * Accumulates one node's writes and enforces the reducer rules (seed 002):
 * - plain fields: last write wins;
 * - `messages`: only appended deltas, or a replacement sent as
 *   `RemoveMessage(REMOVE_ALL_MESSAGES)` + all messages — never `Overwrite` (LangGraph's
 *   Overwrite skips the reducer, so message ids are not assigned or merged);
 * - `mapreduce_results`: only appended deltas; cleared only by one `Overwrite([])` per
 *   patch, never in the same patch as an append (the Overwrite would silently drop it);
 * - `processed_inputs`: only appended ids;
 * - `timeline`: only appended entries (`{ entries }` of this node).
 * Violations throw `CtxloomError('reducer-violation')`; unknown keys `'unknown-state-key'`.
 */
export class PatchBuffer {
  readonly #keys: ReadonlySet<string>;
  readonly #fields = new Map<string, unknown>();
  #messages: { replace: boolean; items: BaseMessage[] } | undefined;
  #results: { reset: boolean; items: MapReduceResult[] } | undefined;
  #inputs: string[] = [];
  #timeline: TimelineEntry[] = [];

  constructor(keys: ReadonlySet<string>) {
    this.#keys = keys;
  }

  /** Sets a plain field (overwrite semantics). */
  set(key: string, value: unknown): void {
    this.#assertKnown(key);
    if (REDUCER_KEYS.has(key as never)) {
      throw new CtxloomError({
        code: 'reducer-violation',
        message: `${key} has a reducer; write it through its module (append/replace/reset), not as a value`,
        path: key,
      });
    }
    this.#fields.set(key, value);
  }

  /** The pending value of a plain field, if this patch sets it. */
  pending(key: string): { value: unknown } | undefined {
    return this.#fields.has(key) ? { value: this.#fields.get(key) } : undefined;
  }

  /** Appends messages (a delta). */
  appendMessages(items: readonly BaseMessage[]): void {
    for (const item of items) {
      if (RemoveMessage.isInstance(item)) {
        throw new CtxloomError({
          code: 'reducer-violation',
          message: 'messages.append takes new messages only; use messages.replace to rewrite the history',
          path: 'messages',
        });
      }
    }
    this.#messages ??= { replace: false, items: [] };
    this.#messages.items.push(...items);
  }

  /** Replaces the whole history: the patch becomes REMOVE_ALL + `all`. */
  replaceMessages(all: readonly BaseMessage[]): void {
    this.#messages = { replace: true, items: [] };
    this.appendMessages(all);
    this.#messages.replace = true;
  }

  /** Appends MapReduce results. */
  appendResults(items: readonly MapReduceResult[]): void {
    if (this.#results?.reset) {
      throw new CtxloomError({
        code: 'reducer-violation',
        message:
          'mapreduce_results was reset in this patch; an append next to Overwrite([]) would be dropped',
        path: 'mapreduce_results',
      });
    }
    this.#results ??= { reset: false, items: [] };
    this.#results.items.push(...items);
  }

  /** Clears MapReduce results with `Overwrite([])`; at most once per patch, never with appends. */
  resetResults(): void {
    if (this.#results?.reset) {
      throw new CtxloomError({
        code: 'reducer-violation',
        message: 'mapreduce_results may be reset at most once per step (LangGraph raises on two Overwrites)',
        path: 'mapreduce_results',
      });
    }
    if (this.#results !== undefined && this.#results.items.length > 0) {
      throw new CtxloomError({
        code: 'reducer-violation',
        message: 'mapreduce_results has appends in this patch; Overwrite([]) would silently drop them',
        path: 'mapreduce_results',
      });
    }
    this.#results = { reset: true, items: [] };
  }

  /** Records processed input ids in the ledger. */
  recordInputs(ids: readonly string[]): void {
    this.#inputs.push(...ids);
  }

  /** Appends timeline entries (a delta; the channel's reducer concatenates). */
  appendTimeline(entries: readonly TimelineEntry[]): void {
    this.#timeline.push(...entries);
  }

  /** True when `messages` will be replaced by this patch. */
  get replacesMessages(): boolean {
    return this.#messages?.replace === true;
  }

  /** Messages this patch adds (after a replacement: the new history). */
  get pendingMessages(): readonly BaseMessage[] {
    return this.#messages?.items ?? [];
  }

  /** Results this patch appends. */
  get pendingResults(): readonly MapReduceResult[] {
    return this.#results?.items ?? [];
  }

  /** True when this patch resets `mapreduce_results`. */
  get resetsResults(): boolean {
    return this.#results?.reset === true;
  }

  /** Input ids this patch adds to the ledger. */
  get pendingInputs(): readonly string[] {
    return this.#inputs;
  }

  /** The patch: one object for `Command({ update })`. */
  build(): StatePatch {
    const patch: StatePatch = Object.fromEntries(this.#fields);
    if (this.#messages !== undefined) {
      const items = [...this.#messages.items];
      patch.messages = this.#messages.replace
        ? [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...items]
        : items;
    }
    if (this.#results !== undefined) {
      patch.mapreduce_results = this.#results.reset ? new Overwrite([]) : [...this.#results.items];
    }
    if (this.#inputs.length > 0) patch.processed_inputs = [...this.#inputs];
    if (this.#timeline.length > 0) patch.timeline = { entries: [...this.#timeline] };
    return patch;
  }

  #assertKnown(key: string): void {
    if (!this.#keys.has(key)) {
      throw new CtxloomError({
        code: 'unknown-state-key',
        message: `state has no field ${key}`,
        path: key,
        details: { known: [...this.#keys] },
      });
    }
  }
}
