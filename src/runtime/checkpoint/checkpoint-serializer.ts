import { load } from '@langchain/core/load';
import { DeltaSnapshot, JsonPlusSerializer } from '@langchain/langgraph-checkpoint';
import { CtxloomError } from '../../core/errors.ts';

/**
 * LangGraph's `JsonPlusSerializer` with a synchronous walk where its reviver is asynchronous
 * at every node: the same bytes written, the same values read, in a fraction of the time.
 *
 * `JsonPlusSerializer` revives a parsed value bottom-up, awaiting a promise for every object,
 * array and string of it (tens of thousands for a long thread's messages: a third of a cold
 * load, most of its garbage). This walk makes the same copies and the same checks in the same
 * order, bottom-up, and awaits only where a value needs it: a LangChain object, revived by
 * `@langchain/core/load` exactly as `JsonPlusSerializer` does. LangGraph's own records
 * (`lc: 2`) other than `undefined` and `DeltaSnapshot` are handed to `JsonPlusSerializer`
 * itself, so that set stays whatever the installed version revives. A test compares both
 * serializers on generated values (`checkpoint-serializer.test.ts`). Decision record 038.
 */
export class CheckpointSerializer extends JsonPlusSerializer {
  /**
   * As `JsonPlusSerializer`'s, but a value nested too deeply for the stack (several thousand
   * levels: serialising, like LangGraph's, recurses) is a `too-large` error, not a raw
   * `RangeError` from inside the put.
   */
  override async dumpsTyped(value: unknown): Promise<[string, Uint8Array]> {
    try {
      return await super.dumpsTyped(value);
    } catch (error) {
      throw nestedTooDeep(error, 'too-large', 'a checkpoint value is nested too deeply to store');
    }
  }

  /** As `JsonPlusSerializer`'s; a stored value nested too deeply for this stack is a `storage-error`. */
  override async loadsTyped(type: string, data: Uint8Array | string): Promise<unknown> {
    try {
      return await super.loadsTyped(type, data);
    } catch (error) {
      throw nestedTooDeep(error, 'storage-error', 'a stored checkpoint value is nested too deeply to read');
    }
  }

  /**
   * As `JsonPlusSerializer`'s, the same bytes: a value of plain JSON (see {@link isPlainJson})
   * is written by `JSON.stringify` alone, without the replacer it calls at every node and the
   * cycle walk before it, neither of which changes such a value. A process session's call
   * records are such values (40 of the 49 MB a 300-turn Chinese tool session writes): its
   * writes serialise in 957 ms instead of 1,255 (the two alternated, one run). Any other value
   * takes `JsonPlusSerializer`'s path.
   */
  protected override _dumps(value: unknown): Uint8Array {
    if (isPlainJson(value, 0)) return ENCODER.encode(JSON.stringify(value));
    // A channel's snapshot of plain JSON (the call log's, every few hundred turns: tens of MB):
    // the record `JsonPlusSerializer`'s replacer makes of it, around the value's own text.
    if (value instanceof DeltaSnapshot && isPlainJson(value.value, 1))
      return ENCODER.encode(`${SNAPSHOT_HEAD}${JSON.stringify(value.value)}}`);
    return super._dumps(value);
  }

  protected override async _loads(data: string): Promise<unknown> {
    return await this.#revive(JSON.parse(data));
  }

  /** The revived value: a plain value when nothing below needed to wait, else a promise of it. */
  #revive(value: unknown): unknown {
    if (value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) {
      const out: unknown[] = new Array(value.length);
      let waits = false;
      for (let index = 0; index < value.length; index += 1) {
        const item = this.#revive(value[index]);
        if (item instanceof Promise) waits = true;
        out[index] = item;
      }
      return waits ? Promise.all(out) : out;
    }
    const record = value as Record<string, unknown>;
    // LangGraph's records other than a snapshot (`undefined`, Set, Map, Error, …; rare): its own reviver, whole.
    if (record.lc === 2 && record.type !== 'delta_snapshot') return super._loads(JSON.stringify(record));
    const keys = Object.keys(record);
    const children: unknown[] = new Array(keys.length);
    let waits = false;
    for (let index = 0; index < keys.length; index += 1) {
      const child = this.#revive(record[keys[index] as string]);
      if (child instanceof Promise) waits = true;
      children[index] = child;
    }
    if (waits) return Promise.all(children).then((settled) => finish(keys, settled));
    return finish(keys, children);
  }
}

const ENCODER = new TextEncoder();

/** How `JsonPlusSerializer` writes a `DeltaSnapshot`, up to its value (`{lc, type, value}`, in that order). */
const SNAPSHOT_HEAD = '{"lc":2,"type":"delta_snapshot","value":';

/**
 * Deeper than this, a value takes `JsonPlusSerializer`'s path (which decides what it stores). A
 * cycle is such a value: the walk below fails at this depth and stops there, since the first
 * part that is not plain ends it.
 */
const PLAIN_DEPTH = 256;

/**
 * Whether `JsonPlusSerializer` would write `value` as `JSON.stringify` does without its
 * replacer: strings, numbers, booleans and null, in arrays and objects of the plain prototypes
 * (or none), without a hole, an `undefined`, a function or a `Send` (`lg_name`) — each of which
 * its replacer writes otherwise — and not deeper than {@link PLAIN_DEPTH}. A `toJSON` would be
 * a function; a class instance, a `Date` or a boxed value has another prototype; a bigint makes
 * `JSON.stringify` throw.
 */
function isPlainJson(value: unknown, depth: number): boolean {
  if (value === null) return true;
  const type = typeof value;
  if (type === 'string' || type === 'number' || type === 'boolean') return true;
  if (type !== 'object' || depth >= PLAIN_DEPTH) return false;
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return false;
    for (let index = 0; index < value.length; index += 1)
      if (!isPlainJson(value[index], depth + 1)) return false;
    return true;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return false;
  const record = value as Record<string, unknown>;
  if (record.lg_name === 'Send') return false;
  for (const key in record) if (!isPlainJson(record[key], depth + 1)) return false;
  return true;
}

/**
 * Builds the copy as `JsonPlusSerializer` does — key by key, by assignment (so a `__proto__`
 * key acts as it does there) — then revives a snapshot or a LangChain object.
 */
function finish(keys: readonly string[], children: readonly unknown[]): unknown {
  const revived: Record<string, unknown> = {};
  for (let index = 0; index < keys.length; index += 1) revived[keys[index] as string] = children[index];
  if (revived.lc === 2 && revived.type === 'delta_snapshot' && Object.hasOwn(revived, 'value'))
    return new DeltaSnapshot(revived.value as never);
  if (revived.lc === 1 && revived.type === 'constructor' && Array.isArray(revived.id))
    return load(JSON.stringify(revived));
  return revived;
}

/** `error` itself, unless it is the stack overflowing on a deep value: then a typed error saying so. */
function nestedTooDeep(error: unknown, code: 'too-large' | 'storage-error', message: string): unknown {
  if (!(error instanceof RangeError) || !/call stack/u.test(error.message)) return error;
  return new CtxloomError({ code, message: `${message} (the call stack ran out)` });
}
