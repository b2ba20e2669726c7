import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { CtxloomError } from '../../core/errors.ts';
import {
  COMMA,
  canonicalSnapshot,
  countOf,
  firstOf,
  itemsCrc,
  ListSnapshot,
  listParts,
  notAList,
  type SnapshotItems,
  scanList,
} from './snapshot-list.ts';

/**
 * Serde type of a delta-channel snapshot stored as a difference: the first `keep` items of
 * another stored snapshot of the same channel and thread (`base`, a checkpoint id) followed
 * by the items stored here. LangGraph writes a full `DeltaSnapshot` every
 * `snapshotFrequency` updates; stored whole, snapshot bytes grow with the square of the
 * thread (n²/(2·frequency)). As a difference each snapshot costs what was appended since the
 * previous one.
 */
export const SNAPSHOT_DIFF_TYPE = 'ctxloom-snapshot-diff';

/**
 * Serde type of a delta-channel snapshot stored as a reference to the writes it summarises:
 * all items of the previous stored snapshot of the same channel (`base`, a checkpoint id)
 * followed by the items of the channel's pending writes on the checkpoints from `base` to
 * `from` (the snapshot's parent), oldest first. Nothing is stored twice: each item lives in
 * its write. Decoding replays those rows (and the base's, back to a whole snapshot), so a
 * cold load reads the thread's rows once instead of a copy of every item. Readers without this
 * type (record format 3 code before it) fail on it with the serialiser's unknown-type error.
 */
export const SNAPSHOT_REF_TYPE = 'ctxloom-snapshot-ref';

/** Fewest shared items worth a difference (below it the snapshot is stored whole). */
const MIN_KEEP = 4;

/** The header of a stored difference. */
interface DiffHeader {
  base: string;
  keep: number;
  key: string | null;
  /**
   * CRC-32 of the kept items ({@link itemsCrc}): a changed base is an error, never silent
   * garbage. Extends along a chain of differences, so a cold read checks each item once.
   */
  crc?: number;
  /** SHA-256 prefix of the kept items (each followed by U+0000): what readers before `crc` check; read only when `crc` is absent. */
  hash?: string;
  /** How many items the tail holds (absent in differences stored before it: the tail is scanned). */
  add?: number;
}

/**
 * Encodes `snapshot` against `base` (the items of another stored snapshot at `baseId`), or
 * returns undefined when they share fewer than {@link MIN_KEEP} leading items or differ in shape.
 */
export function encodeSnapshotDiff(options: {
  baseId: string;
  base: SnapshotItems;
  snapshot: SnapshotItems;
}): Uint8Array | undefined {
  const { base, snapshot } = options;
  if (base.key !== snapshot.key) return undefined;
  // A list that dropped its oldest items (the call log's) shares none: no item split to see it.
  if (firstOf(base) !== firstOf(snapshot)) return undefined;
  let keep = 0;
  const limit = Math.min(base.items.length, snapshot.items.length);
  while (keep < limit && base.items[keep] === snapshot.items[keep]) keep += 1;
  if (keep < MIN_KEEP) return undefined;
  const header: DiffHeader = {
    base: options.baseId,
    keep,
    key: snapshot.key ?? null,
    crc: itemsCrc(base, keep),
    // For readers before `crc` (a rolling upgrade): they check this instead.
    hash: prefixHash(base.items, keep),
    add: snapshot.items.length - keep,
  };
  return Buffer.from(`${JSON.stringify(header)}\n[${snapshot.items.slice(keep).join(',')}]`, 'utf8');
}

/** Reverses {@link encodeSnapshotDiff}: `load(base)` gives the base snapshot's items. */
export async function decodeSnapshotDiff(
  bytes: Uint8Array,
  load: (baseId: string) => Promise<SnapshotItems>,
): Promise<SnapshotItems> {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const newline = buffer.indexOf(0x0a);
  if (newline < 0) throw notAList();
  let header: DiffHeader;
  try {
    header = JSON.parse(buffer.toString('utf8', 0, newline)) as DiffHeader;
  } catch {
    throw notAList();
  }
  // The tail is the list `[item,item,…]` after the header line.
  if (buffer[newline + 1] !== 0x5b || buffer[buffer.byteLength - 1] !== 0x5d) throw notAList();
  const added =
    header.add !== undefined && Number.isSafeInteger(header.add) && header.add >= 0
      ? header.add
      : scanList(buffer, newline + 1, false).count;
  const tail = buffer.subarray(newline + 2, buffer.byteLength - 1);
  const loaded = await load(header.base);
  const base = keptBase(
    loaded,
    (candidate) =>
      countOf(candidate) >= header.keep &&
      (header.crc !== undefined
        ? itemsCrc(candidate, header.keep) === header.crc
        : prefixHash(candidate.items, header.keep) === header.hash),
  );
  if (base === undefined) {
    throw new CtxloomError({
      code: 'storage-error',
      message: `snapshot base ${header.base} changed since a snapshot was stored against it`,
      path: header.base,
    });
  }
  const parts = [...listParts(base, header.keep)];
  if (added > 0) parts.push(...(header.keep > 0 ? [COMMA, tail] : [tail]));
  const crc =
    header.crc === undefined
      ? undefined
      : added === 0
        ? header.crc
        : crc32(tail, header.keep === 0 ? 0 : crc32(COMMA, header.crc));
  return new ListSnapshot(header.key ?? undefined, parts, header.keep + added, crc);
}

/** The header of a stored reference ({@link SNAPSHOT_REF_TYPE}). */
export interface SnapshotRef {
  /** Checkpoint whose stored snapshot of the channel the reference extends (all its items); `''`: none, the writes from the thread's first checkpoint. */
  base: string;
  /** The snapshot's parent: the writes of `base` … `from` (along parents) are the appended items. */
  from: string;
  key: string | null;
  /** Items of the base, and a SHA-256 prefix of them. */
  keep: number;
  hash: string;
  /** Appended items (the first `count` of the writes' items, oldest first), and their hash. */
  count: number;
  tail: string;
}

/**
 * Encodes `snapshot` as the base's items followed by `appended` (the items of the channel's
 * writes from the base to the snapshot's parent), or returns undefined unless the snapshot is
 * exactly that (a removal or replacement, another branch's base: stored otherwise).
 */
export function encodeSnapshotRef(options: {
  baseId: string;
  fromId: string;
  base: SnapshotItems;
  snapshot: SnapshotItems;
  appended: readonly string[];
}): Uint8Array | undefined {
  const { base, snapshot, appended } = options;
  if (base.key !== snapshot.key) return undefined;
  const keep = base.items.length;
  if (snapshot.items.length !== keep + appended.length) return undefined;
  for (let index = 0; index < keep; index += 1)
    if (base.items[index] !== snapshot.items[index]) return undefined;
  for (let index = 0; index < appended.length; index += 1)
    if (appended[index] !== snapshot.items[keep + index]) return undefined;
  const header: SnapshotRef = {
    base: options.baseId,
    from: options.fromId,
    key: snapshot.key ?? null,
    keep,
    hash: prefixHash(base.items, keep),
    count: appended.length,
    tail: prefixHash(appended, appended.length),
  };
  return Buffer.from(JSON.stringify(header), 'utf8');
}

/** The header of a stored reference. */
export function parseSnapshotRef(bytes: Uint8Array): SnapshotRef {
  return JSON.parse(
    Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'),
  ) as SnapshotRef;
}

/**
 * Reverses {@link encodeSnapshotRef}: `base` are the base snapshot's items, `appended` the
 * items of the writes from the base to `from`. Either changed since is an error, never silent garbage.
 */
export function decodeSnapshotRef(
  ref: SnapshotRef,
  base: SnapshotItems,
  appended: readonly string[],
): SnapshotItems {
  const kept = keptBase(
    base,
    (candidate) => countOf(candidate) >= ref.keep && prefixHash(candidate.items, ref.keep) === ref.hash,
  );
  if (kept === undefined) {
    throw new CtxloomError({
      code: 'storage-error',
      message: `snapshot base ${ref.base} changed since a snapshot was stored against it`,
      path: ref.base,
    });
  }
  if (appended.length < ref.count || prefixHash(appended, ref.count) !== ref.tail) {
    throw new CtxloomError({
      code: 'storage-error',
      message: `the writes from ${ref.base} to ${ref.from} changed since a snapshot was stored as a reference to them`,
      path: ref.from,
    });
  }
  return {
    key: ref.key ?? undefined,
    items: [...kept.items.slice(0, ref.keep), ...appended.slice(0, ref.count)],
  };
}

/**
 * The items a pending write of a list channel appends, as JSON text: the list of the write
 * (under `key` for `{ <key>: list }` channels), or the value itself as one item; undefined
 * when it is not JSON of that shape.
 */
export function writeItems(type: string, bytes: Uint8Array, key: string | undefined): string[] | undefined {
  if (type !== 'json') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
  } catch {
    return undefined;
  }
  if (key !== undefined) {
    const list =
      value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
    return Array.isArray(list) ? list.map((item) => JSON.stringify(item)) : undefined;
  }
  return Array.isArray(value) ? value.map((item) => JSON.stringify(item)) : [JSON.stringify(value)];
}

/** The checkpoint id a stored difference is based on. */
export function snapshotDiffBase(bytes: Uint8Array): string {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  return (JSON.parse(text.slice(0, text.indexOf('\n'))) as DiffHeader).base;
}

function prefixHash(items: readonly string[], count: number): string {
  const hash = createHash('sha256');
  for (let index = 0; index < count; index += 1) hash.update(items[index] as string).update('\u0000');
  return hash.digest('base64').slice(0, 16);
}

/** Deserialised snapshot values a saver keeps, one per thread and channel (each can be a long thread's whole message list). */
const VALUES_KEPT = 8;

/**
 * Snapshots of recent threads, as item lists: the last one written per (thread key,
 * channel) — the base of the next — and decoded ones, so a chain of differences is decoded
 * once; and the newest value read per thread and channel. Bounded (LRU).
 */
export class SnapshotMemo {
  readonly #latest = new Map<string, { checkpointId: string; snapshot: SnapshotItems }>();
  readonly #decoded = new Map<string, SnapshotItems>();
  readonly #values = new Map<string, { checkpointId: string; loaded: { value: unknown; bytes: number } }>();
  readonly #limit: number;

  constructor(limit = 16) {
    this.#limit = limit;
  }

  latest(threadKey: number, channel: string): { checkpointId: string; snapshot: SnapshotItems } | undefined {
    return this.#latest.get(`${threadKey}\u0000${channel}`);
  }

  setLatest(threadKey: number, channel: string, checkpointId: string, snapshot: SnapshotItems): void {
    bounded(this.#latest, `${threadKey}\u0000${channel}`, { checkpointId, snapshot }, this.#limit);
    this.setDecoded(threadKey, checkpointId, channel, snapshot);
  }

  decoded(threadKey: number, checkpointId: string, channel: string): SnapshotItems | undefined {
    return this.#decoded.get(`${threadKey}\u0000${checkpointId}\u0000${channel}`);
  }

  setDecoded(threadKey: number, checkpointId: string, channel: string, snapshot: SnapshotItems): void {
    bounded(this.#decoded, `${threadKey}\u0000${checkpointId}\u0000${channel}`, snapshot, this.#limit);
  }

  /**
   * A snapshot's deserialised value (a `DeltaSnapshot`) at a checkpoint, as `loadValue` read it
   * last: the checkpoint read as a head and the next head's history seeded from it decode the
   * same snapshot (a long session's whole message list or call log). Shared, as the history
   * cache shares its seeds. Only the newest per thread and channel: an older one would keep a
   * value the thread no longer reads alive (and the collector busy with it).
   */
  value(
    threadKey: number,
    checkpointId: string,
    channel: string,
  ): { value: unknown; bytes: number } | undefined {
    const known = this.#values.get(`${threadKey}\u0000${channel}`);
    return known?.checkpointId === checkpointId ? known.loaded : undefined;
  }

  setValue(
    threadKey: number,
    checkpointId: string,
    channel: string,
    loaded: { value: unknown; bytes: number },
  ): void {
    bounded(this.#values, `${threadKey}\u0000${channel}`, { checkpointId, loaded }, VALUES_KEPT);
  }

  /** Forgets the values read at a checkpoint (put again). */
  forgetValues(threadKey: number, checkpointId: string): void {
    const prefix = `${threadKey}\u0000`;
    for (const [key, known] of [...this.#values])
      if (key.startsWith(prefix) && known.checkpointId === checkpointId) this.#values.delete(key);
  }

  /** Forgets everything of a thread key (prune, delete). */
  forget(threadKey?: number): void {
    if (threadKey === undefined) {
      this.#latest.clear();
      this.#decoded.clear();
      this.#values.clear();
      return;
    }
    const prefix = `${threadKey}\u0000`;
    for (const map of [this.#latest, this.#decoded, this.#values] as Map<string, unknown>[]) {
      for (const key of [...map.keys()]) if (key.startsWith(prefix)) map.delete(key);
    }
  }
}

function bounded<T>(map: Map<string, T>, key: string, value: T, limit: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > limit) {
    const oldest = map.keys().next().value;
    if (oldest !== undefined) map.delete(oldest);
  }
}

/**
 * The base a stored difference or reference extends, when `keeps` accepts it — else, for a
 * whole snapshot read raw, the same list with its items as `JSON.stringify` writes them (the
 * text the check was computed over); undefined when neither is accepted.
 */
function keptBase(
  base: SnapshotItems,
  keeps: (candidate: SnapshotItems) => boolean,
): SnapshotItems | undefined {
  if (keeps(base)) return base;
  if (!(base instanceof ListSnapshot && base.raw)) return undefined;
  const canonical = canonicalSnapshot(base);
  return keeps(canonical) ? canonical : undefined;
}
