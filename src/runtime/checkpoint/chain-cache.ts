import type { ChainRecord } from './chain-reader.ts';
import type { StoredWrite } from './writes-record.ts';

/**
 * A small process-local cache of decoded rows, keyed by thread, id and the stored bytes
 * (so a row another process rewrote is a miss, never stale). It keeps `put` and `getTuple`
 * from re-reading a chain on every call.
 */
export class ChainCache {
  readonly #entries = new Map<string, { data: Uint8Array; value: ChainRecord }>();
  readonly #writes = new Map<string, { data: Uint8Array; value: StoredWrite[] }>();
  readonly #limit: number;

  constructor(limit = 256) {
    this.#limit = limit;
  }

  /** The decoded record of a row stored as `data`, if cached. */
  get(key: string, data: Uint8Array): ChainRecord | undefined {
    return lookup(this.#entries, key, data);
  }

  set(key: string, data: Uint8Array, value: ChainRecord): void {
    store(this.#entries, key, data, value, this.#limit);
  }

  /** The decoded writes of a row whose writes are stored as `data`, if cached. */
  getWrites(key: string, data: Uint8Array): StoredWrite[] | undefined {
    return lookup(this.#writes, key, data);
  }

  setWrites(key: string, data: Uint8Array, value: StoredWrite[]): void {
    store(this.#writes, key, data, value, this.#limit);
  }

  /** Forgets everything (a decoded record turned out stale: see `SqlCheckpointSaver`). */
  clear(): void {
    this.#entries.clear();
    this.#writes.clear();
  }
}

function lookup<T>(
  entries: Map<string, { data: Uint8Array; value: T }>,
  key: string,
  data: Uint8Array,
): T | undefined {
  const entry = entries.get(key);
  if (entry === undefined || !sameBytes(entry.data, data)) return undefined;
  entries.delete(key);
  entries.set(key, entry);
  return entry.value;
}

function store<T>(
  entries: Map<string, { data: Uint8Array; value: T }>,
  key: string,
  data: Uint8Array,
  value: T,
  limit: number,
): void {
  entries.delete(key);
  entries.set(key, { data, value });
  if (entries.size > limit) {
    const oldest = entries.keys().next().value;
    if (oldest !== undefined) entries.delete(oldest);
  }
}

export function sameBytes(a: Uint8Array | undefined, b: Uint8Array | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);
}
