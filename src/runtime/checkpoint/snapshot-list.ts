import { crc32 } from 'node:zlib';
import { CtxloomError } from '../../core/errors.ts';

/** A snapshot's list: its items as JSON text, and the key holding the list (`{ entries }`) if any. */
export interface SnapshotItems {
  key: string | undefined;
  readonly items: string[];
  /** CRC-32 of the whole list's text ({@link itemsCrc}), once computed. */
  crc?: number | undefined;
}

export const COMMA = Buffer.from(',');

/**
 * A decoded snapshot held as the UTF-8 text of its list (its items joined by commas, in
 * parts: a base's parts are shared, never copied) and split into items only when asked:
 * a cold read passes the text straight to the serialiser.
 */
export class ListSnapshot implements SnapshotItems {
  readonly key: string | undefined;
  readonly count: number;
  readonly parts: readonly Buffer[];
  crc: number | undefined;
  /** Read as stored by the serialiser, not written by {@link encodeSnapshotDiff}: its text may differ from `JSON.stringify`'s. */
  readonly raw: boolean;
  #items: string[] | undefined;

  constructor(
    key: string | undefined,
    parts: readonly Buffer[],
    count: number,
    crc: number | undefined,
    raw = false,
  ) {
    this.key = key;
    this.parts = parts;
    this.count = count;
    this.crc = crc;
    this.raw = raw;
  }

  /** The first item's text, without splitting the rest (undefined: none). */
  get first(): string | undefined {
    if (this.#items !== undefined) return this.#items[0];
    const part = this.parts[0];
    return part === undefined ? undefined : part.toString('utf8', 0, itemEnd(part, 0, part.byteLength));
  }

  get items(): string[] {
    if (this.#items === undefined) {
      const list = Buffer.concat([Buffer.from('['), ...this.parts, Buffer.from(']')]);
      this.#items = scanList(list, 0, true).items;
    }
    return this.#items;
  }
}

/** A snapshot's first item, without splitting a decoded one (undefined: none). */
export function firstOf(snapshot: SnapshotItems): string | undefined {
  return snapshot instanceof ListSnapshot ? snapshot.first : snapshot.items[0];
}

/** How many items a snapshot has (without splitting a decoded one). */
export function countOf(snapshot: SnapshotItems): number {
  return snapshot instanceof ListSnapshot ? snapshot.count : snapshot.items.length;
}

/** The UTF-8 text of a snapshot's first `count` items joined by commas, in parts. */
export function listParts(snapshot: SnapshotItems, count: number): readonly Buffer[] {
  if (snapshot instanceof ListSnapshot && count === snapshot.count) return snapshot.parts;
  return count === 0 ? [] : [Buffer.from(snapshot.items.slice(0, count).join(','), 'utf8')];
}

/** The items of a serialised `DeltaSnapshot` whose value is a list (or `{ <key>: list }`); otherwise undefined. */
export function snapshotItems(json: string): SnapshotItems | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return undefined;
  }
  const snapshot = parsed as { lc?: unknown; type?: unknown; value?: unknown };
  if (snapshot?.lc !== 2 || snapshot.type !== 'delta_snapshot') return undefined;
  const value = snapshot.value;
  if (Array.isArray(value)) return { key: undefined, items: value.map((item) => JSON.stringify(item)) };
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value);
    const list = (value as Record<string, unknown>)[keys[0] ?? ''];
    if (keys.length === 1 && Array.isArray(list)) {
      return { key: keys[0], items: list.map((item) => JSON.stringify(item)) };
    }
  }
  return undefined;
}

/**
 * A whole stored snapshot (`[type, bytes]` as the serialiser wrote it) as a list, without
 * parsing its items when its text has the shape {@link snapshotJson} writes; else
 * {@link snapshotItems} of it. Its items are the stored text; a difference checks its base
 * against items as `JSON.stringify` writes them, so a mismatch re-reads it with
 * {@link canonicalSnapshot} before it is an error.
 */
export function storedSnapshotItems(bytes: Uint8Array): SnapshotItems | undefined {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (isSnapshotJson(buffer)) {
    let start = SNAPSHOT_HEAD.byteLength;
    let key: string | undefined;
    if (buffer[start] === 0x7b) {
      const colon = buffer[start + 1] === 0x22 ? closingQuote(buffer, start + 1, buffer.byteLength) + 1 : -1;
      if (colon > 0 && buffer[colon] === 0x3a) {
        key = keyOf(buffer.toString('utf8', start + 1, colon));
        if (key !== undefined) start = colon + 1;
      }
    }
    const close = buffer.byteLength - (key === undefined ? 1 : 2);
    if (
      buffer[start] === 0x5b &&
      buffer[close] === 0x7d &&
      (key === undefined || buffer[close + 1] === 0x7d)
    ) {
      const list = buffer.subarray(start, close);
      const scanned = tryScan(list);
      if (scanned !== undefined) {
        const text = list.subarray(1, list.byteLength - 1);
        return new ListSnapshot(key, scanned === 0 ? [] : [text], scanned, undefined, true);
      }
    }
  }
  return snapshotItems(buffer.toString('utf8'));
}

/** A quoted JSON key, or undefined when its escapes are not JSON (the slow path then decides). */
function keyOf(quoted: string): string | undefined {
  try {
    return JSON.parse(quoted) as string;
  } catch {
    return undefined;
  }
}

const SNAPSHOT_HEAD = Buffer.from('{"lc":2,"type":"delta_snapshot","value":');

/** True when serialised JSON starts as the serialiser writes a `DeltaSnapshot`. */
export function isSnapshotJson(bytes: Uint8Array): boolean {
  return (
    bytes.byteLength > SNAPSHOT_HEAD.byteLength &&
    Buffer.from(bytes.buffer, bytes.byteOffset, SNAPSHOT_HEAD.byteLength).equals(SNAPSHOT_HEAD)
  );
}

/** A snapshot read raw, with its items as `JSON.stringify` writes them. */
export function canonicalSnapshot(snapshot: SnapshotItems): SnapshotItems {
  return { key: snapshot.key, items: snapshot.items.map((item) => JSON.stringify(JSON.parse(item))) };
}

function tryScan(list: Buffer): number | undefined {
  try {
    return scanList(list, 0, false).count;
  } catch {
    return undefined;
  }
}

/** The serialised `DeltaSnapshot` of a list, as JsonPlusSerializer writes it. */
export function snapshotJson(snapshot: SnapshotItems): Uint8Array {
  const head = `{"lc":2,"type":"delta_snapshot","value":${snapshot.key === undefined ? '' : `{${JSON.stringify(snapshot.key)}:`}[`;
  const tail = snapshot.key === undefined ? ']}' : ']}}';
  return Buffer.concat([
    Buffer.from(head, 'utf8'),
    ...listParts(snapshot, countOf(snapshot)),
    Buffer.from(tail),
  ]);
}

/**
 * CRC-32 of the UTF-8 text of a snapshot's first `count` items joined by commas (the list's
 * text between its brackets); remembered on the snapshot when `count` is all of them — the
 * next difference in a chain keeps them all, so a cold read checks each item once.
 */
export function itemsCrc(snapshot: SnapshotItems, count: number): number {
  const all = count === countOf(snapshot);
  if (all && snapshot.crc !== undefined) return snapshot.crc;
  let crc = 0;
  for (const part of listParts(snapshot, count)) crc = crc32(part, crc);
  if (all) snapshot.crc = crc;
  return crc;
}

/**
 * Scans the JSON list that starts at byte `start` of `bytes` and runs to its end: how many
 * items it has and, when `split`, the UTF-8 text between its top-level commas — exactly the
 * item texts it was joined from when it was written as `[item,item,…]` from `JSON.stringify`
 * output, so no item is parsed and written again. Scans bytes: every byte of JSON's structure
 * is ASCII, and no byte of a multi-byte UTF-8 sequence is; a string's body is skipped with
 * `indexOf`. Not such a list: a `storage-error`.
 */
export function scanList(bytes: Buffer, start: number, split: boolean): { count: number; items: string[] } {
  const items: string[] = [];
  const end = bytes.byteLength - 1;
  if (bytes[start] !== 0x5b || bytes[end] !== 0x5d) throw notAList();
  if (end === start + 1) return { count: 0, items };
  let count = 0;
  for (let itemStart = start + 1; ; ) {
    const itemStop = itemEnd(bytes, itemStart, end);
    count += 1;
    if (split) items.push(bytes.toString('utf8', itemStart, itemStop));
    if (itemStop === end) return { count, items };
    itemStart = itemStop + 1;
  }
}

/**
 * Where the item starting at byte `start` ends, before `end`: its top-level comma, or `end`.
 * An item whose brackets do not balance by then (`[1],"b":[2]` is no list) is a `storage-error`.
 */
function itemEnd(bytes: Buffer, start: number, end: number): number {
  let depth = 0;
  for (let index = start; index < end; index += 1) {
    const code = bytes[index] as number;
    if (code === 0x22) {
      index = closingQuote(bytes, index, end);
    } else if (code === 0x5b || code === 0x7b) depth += 1;
    else if (code === 0x5d || code === 0x7d) {
      depth -= 1;
      if (depth < 0) throw notAList();
    } else if (code === 0x2c && depth === 0) return index;
  }
  if (depth !== 0) throw notAList();
  return end;
}

/** The index of the quote that closes the string opened at `open` (before `end`). */
export function closingQuote(bytes: Buffer, open: number, end: number): number {
  let at = open;
  for (;;) {
    at = bytes.indexOf(0x22, at + 1);
    if (at < 0 || at >= end) throw notAList();
    let backslashes = 0;
    while (bytes[at - 1 - backslashes] === 0x5c) backslashes += 1;
    if (backslashes % 2 === 0) return at;
  }
}

export function notAList(): CtxloomError {
  return new CtxloomError({
    code: 'storage-error',
    message: 'a stored snapshot difference is not a header line and a JSON list',
  });
}
