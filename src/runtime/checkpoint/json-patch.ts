import { isDeepStrictEqual } from 'node:util';

/**
 * A compact structural difference between two JSON values (a checkpoint record's header
 * against its parent's). One node per changed position:
 * - `{ "=": value }` the new value;
 * - `{ "+": n }` an integer that grew by n (channel versions, steps, counters);
 * - `{ "t": ms }` an ISO timestamp that moved by ms;
 * - `{ "^": 0 }` the string `base` (the parent checkpoint's id: where a value moved);
 * - `{ "o": { key: node }, "d": [keys] }` an object: changed or added keys, removed keys;
 * - `{ "a": { index: node } }` an array of the same length.
 * Consecutive records of a thread differ in a few channel versions, one `versions_seen`
 * entry, the timestamp and the values that moved, so the patch is a few dozen bytes where
 * the whole header is a kilobyte.
 */
export type JsonPatch =
  | { '=': unknown }
  | { '+': number }
  | { t: number }
  | { '^': 0 }
  | { o: Record<string, JsonPatch>; d?: string[] }
  | { a: Record<string, JsonPatch> };

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function isoMs(value: unknown): number | undefined {
  if (typeof value !== 'string' || !ISO.test(value)) return undefined;
  const ms = Date.parse(value);
  return Number.isFinite(ms) && new Date(ms).toISOString() === value ? ms : undefined;
}

/** The patch from `from` to `to`, or undefined when they are equal. `base` is the string `{ "^": 0 }` stands for. */
export function diffJson(from: unknown, to: unknown, base: string): JsonPatch | undefined {
  if (isDeepStrictEqual(from, to)) return undefined;
  if (typeof to === 'string' && to === base) return { '^': 0 };
  if (Number.isSafeInteger(from) && Number.isSafeInteger(to))
    return { '+': (to as number) - (from as number) };
  const fromMs = isoMs(from);
  const toMs = isoMs(to);
  if (fromMs !== undefined && toMs !== undefined) return { t: toMs - fromMs };
  if (isObject(from) && isObject(to)) {
    const o: Record<string, JsonPatch> = {};
    for (const [key, value] of Object.entries(to)) {
      const patch = Object.hasOwn(from, key)
        ? diffJson(from[key], value, base)
        : typeof value === 'string' && value === base
          ? { '^': 0 as const }
          : { '=': value };
      if (patch !== undefined) o[key] = patch;
    }
    const d = Object.keys(from).filter((key) => !Object.hasOwn(to, key));
    return d.length > 0 ? { o, d } : { o };
  }
  if (Array.isArray(from) && Array.isArray(to) && from.length === to.length) {
    const a: Record<string, JsonPatch> = {};
    to.forEach((value, index) => {
      const patch = diffJson(from[index], value, base);
      if (patch !== undefined) a[index] = patch;
    });
    return { a };
  }
  return { '=': to };
}

/** Applies {@link diffJson}'s patch to `from` (not changed; unchanged parts are shared). */
export function applyJson(from: unknown, patch: JsonPatch | undefined, base: string): unknown {
  if (patch === undefined) return from;
  if ('=' in patch) return patch['='];
  if ('^' in patch) return base;
  if ('+' in patch) return (from as number) + patch['+'];
  if ('t' in patch) return new Date((isoMs(from) ?? Number.NaN) + patch.t).toISOString();
  if ('o' in patch) {
    const source = from as JsonObject;
    const out: JsonObject = {};
    const removed = new Set(patch.d ?? []);
    for (const [key, value] of Object.entries(source)) {
      if (removed.has(key)) continue;
      out[key] = Object.hasOwn(patch.o, key) ? applyJson(value, patch.o[key], base) : value;
    }
    for (const [key, node] of Object.entries(patch.o)) {
      if (!Object.hasOwn(source, key)) out[key] = applyJson(undefined, node, base);
    }
    return out;
  }
  return (from as unknown[]).map((value, index) =>
    Object.hasOwn(patch.a, String(index)) ? applyJson(value, patch.a[index], base) : value,
  );
}

/**
 * The patch from `from` to `to`, checked: applying it gives a value deeply equal to `to`
 * (with `exactText`: the same JSON text, key order included), else the whole value.
 */
export function checkedPatch(
  from: unknown,
  to: unknown,
  base: string,
  exactText: boolean,
): JsonPatch | undefined {
  const patch = diffJson(from, to, base);
  const same = (value: unknown) =>
    exactText ? JSON.stringify(value) === JSON.stringify(to) : isDeepStrictEqual(value, to);
  return same(applyJson(from, patch, base)) ? patch : { '=': to };
}
