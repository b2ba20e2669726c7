import type { RunnableConfig } from '@langchain/core/runnables';
import {
  type CheckpointPendingWrite,
  type DeltaChannelHistory,
  getCheckpointId,
} from '@langchain/langgraph-checkpoint';
import { BoundedMap } from '../../core/bounded-map.ts';
import { CtxloomError } from '../../core/errors.ts';
import type { ChainCache } from './chain-cache.ts';
import { ChainReader } from './chain-reader.ts';
import type { StoredRow } from './checkpoint-rows.ts';
import { decodeId } from './id-codec.ts';
import { loadValue } from './locate-values.ts';
import { sortedWrites } from './pending-writes.ts';
import type { SaverContext } from './saver-context.ts';
import { rowBytes, type SqlExecutor } from './sql-driver.ts';
import { findThreadKey, threadName } from './thread-keys.ts';

/** Ancestors read to extend a cached history to a newer checkpoint of the same thread. */
export const EXTEND_LEVELS = 32;
/** Rows from which a history's walk decodes its rows in bulk (`ChainReader.prefetch`). */
const PREFETCH_ROWS = 8;

/**
 * One channel's history: its seed (when an ancestor holds a value) and its writes, oldest
 * first, with the bytes the seed and the writes were decoded from (what the cache weighs them by).
 */
interface ChannelHistory {
  seed?: { value: unknown; bytes: number };
  writes: CheckpointPendingWrite[];
  bytes: number;
}

/** The decoded history of one checkpoint (the head a process works on), per channel. */
interface HistoryEntry {
  targetId: string;
  channels: Map<string, ChannelHistory>;
  /** Checkpoints whose pending writes the histories include: a later write to one of them invalidates the entry. */
  included: Set<string>;
}

/** Bytes the cache's seeds and writes were decoded from, all threads together (see {@link HistoryCache}). */
export const HISTORY_CACHE_BYTES = 256 * 1024 * 1024;

/** Threads whose histories the cache keeps (see {@link HistoryCache}). */
export const HISTORY_CACHE_THREADS = 64;

/**
 * The decoded delta-channel histories of each thread's latest target, per (thread,
 * namespace) key, so the next turn reads and decodes only the rows added since (a turn's
 * getState and invoke ask for the same head; the next turn's head is a few checkpoints
 * further). Values are shared between calls, never the arrays. Invalidated by writes to an
 * included checkpoint, prune and deleteThread.
 *
 * Bounded by threads (`limit`) and by the bytes its seeds and writes were decoded from
 * (`maxBytes`, all threads together; decoded, they take a few times that): a thread's history is every
 * write since its channels' last snapshots — up to `snapshotFrequency` updates, each a turn's
 * call records in a long process session — so a count alone let a server holding many long
 * sessions keep each one's. The least recently used thread goes first; the thread just read is
 * kept even when it alone is over the bound.
 */
export class HistoryCache {
  readonly #entries: BoundedMap<number, HistoryEntry>;

  constructor(limit = HISTORY_CACHE_THREADS, maxBytes = HISTORY_CACHE_BYTES) {
    this.#entries = new BoundedMap(limit, maxBytes);
  }

  get(threadKey: number): HistoryEntry | undefined {
    return this.#entries.get(threadKey);
  }

  set(threadKey: number, entry: HistoryEntry): void {
    let bytes = 0;
    for (const history of entry.channels.values()) bytes += history.bytes;
    this.#entries.set(threadKey, entry, bytes);
  }

  /**
   * Forgets a thread key's entry when `checkpointId` (undefined: any) is part of it: its
   * writes are in the entry, or (`asTarget`, a checkpoint put again) it is the entry's head.
   * New writes of the head itself change nothing: a history never includes its head's writes.
   */
  invalidate(threadKey: number, checkpointId?: string, asTarget = false): void {
    const entry = this.#entries.peek(threadKey);
    if (entry === undefined) return;
    if (
      checkpointId === undefined ||
      entry.included.has(checkpointId) ||
      (asTarget && entry.targetId === checkpointId)
    )
      this.#entries.delete(threadKey);
  }

  clear(): void {
    this.#entries.clear();
  }
}

/**
 * A saver's cache, its bound checked: `bytes` (the option `historyCacheBytes`) a whole number
 * ≥ 0, default {@link HISTORY_CACHE_BYTES}.
 */
export function historyCacheOf(bytes: number | undefined): HistoryCache {
  if (bytes === undefined) return new HistoryCache();
  if (!Number.isSafeInteger(bytes) || bytes < 0) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: `historyCacheBytes must be a whole number of bytes ≥ 0, got ${String(bytes)}`,
      path: 'historyCacheBytes',
    });
  }
  return new HistoryCache(HISTORY_CACHE_THREADS, bytes);
}

/**
 * `BaseCheckpointSaver.getDeltaChannelHistory`: walks the parent chain of the target
 * checkpoint (its parent first), stops per channel at the nearest ancestor where the channel
 * holds a value (the seed), and returns each channel's writes oldest first, each
 * checkpoint's writes in `writesSortKey` order.
 *
 * Bounded by what changed: a channel whose counters (`metadata.counters_since_delta_snapshot`)
 * show no update since its snapshot needs no walk (its seed is the value it points at), and
 * when the thread's
 * previous head is among the last {@link EXTEND_LEVELS} ancestors its cached history is
 * extended by the rows in between instead of walking back to the snapshot.
 */
export async function deltaChannelHistory(options: {
  context: SaverContext;
  executor: SqlExecutor;
  config: RunnableConfig;
  channels: string[];
  cache?: HistoryCache;
  chains?: ChainCache;
}): Promise<Record<string, DeltaChannelHistory>> {
  const { context, executor, config, channels } = options;
  const result: Record<string, DeltaChannelHistory> = {};
  for (const channel of channels) result[channel] = { writes: [] };
  if (channels.length === 0) return result;
  const threadId = configString(config, 'thread_id');
  if (threadId === undefined) return result;
  const namespace = configString(config, 'checkpoint_ns') ?? '';
  const threadKey = await findThreadKey(executor, context.tables, threadName(threadId, namespace));
  if (threadKey === undefined) return result;
  const cp = context.tables.checkpoints;
  let targetId = getCheckpointId(config);
  if (!targetId) {
    const latest = await executor.all(
      `SELECT checkpoint_id FROM ${cp} WHERE thread = ? AND data IS NOT NULL ORDER BY checkpoint_id DESC LIMIT 1`,
      [threadKey],
    );
    targetId =
      latest[0] === undefined ? '' : decodeId(rowBytes(latest[0], 'checkpoint_id') ?? new Uint8Array());
  }
  if (!targetId) return result;
  const cached = options.cache?.get(threadKey);
  if (cached?.targetId === targetId && channels.every((channel) => cached.channels.has(channel))) {
    return publish(cached, channels);
  }
  const reader = new ChainReader(context, executor, options.chains);
  // The target and its last ancestors: enough to extend the cached head, or to learn the
  // counters. The walk ends at the cached head: a turn's rows carry its call records, and the
  // head is usually a few rows back, not EXTEND_LEVELS.
  let rows = await reader.ancestors(threadKey, targetId, EXTEND_LEVELS, cached?.targetId);
  const target = rows[0];
  if (target === undefined) return result;
  const entry: HistoryEntry = { targetId, channels: new Map(), included: new Set() };
  const previous = cached === undefined ? -1 : rows.findIndex((row) => row.checkpointId === cached.targetId);
  const { record: targetRecord } = await reader.record(target);
  const counters = await countersOf(context, targetRecord.header.metadataType, targetRecord.metadata);
  const pending = new Set<string>();
  for (const channel of channels) {
    const count = counters?.[channel];
    if (Array.isArray(count) && Number(count[0]) === 0) {
      // No update since the snapshot (or ever): the seed is the value the target points at.
      const location = targetRecord.header.located[channel];
      if (location === undefined) entry.channels.set(channel, { writes: [], bytes: 0 });
      else {
        const seed = await loadValue(context, reader, target, targetRecord, channel, location);
        entry.channels.set(channel, { seed, writes: [], bytes: seed.bytes });
      }
    } else {
      pending.add(channel);
    }
  }
  if (pending.size > 0) {
    // Extend the previous head's history when it lies within the rows read. A channel its
    // history lacks (the head held that channel's value, a snapshot, so LangGraph asked for the
    // others only) starts from its seed, which must then lie among the rows up to the head.
    let extend = cached !== undefined && previous > 0;
    const lacking = extend ? [...pending].filter((channel) => !cached?.channels.has(channel)) : [];
    if (lacking.length > 0 && !(await seedsWithin(reader, rows.slice(1, previous + 1), lacking)))
      extend = false;
    // The rows read may end before a channel's seed (at EXTEND_LEVELS, or at the cached head
    // when it is not extended): walk the whole chain unless every channel's seed is among them.
    if (!extend && (rows.length > EXTEND_LEVELS || previous >= 0)) {
      if (!(await seedsWithin(reader, rows.slice(1), [...pending]))) {
        rows = await reader.ancestors(threadKey, targetId);
      }
    }
    const limit = extend ? previous : rows.length - 1;
    // Positions 1..limit: the target's parent first, back to the previous head (or the end).
    const visited = rows.slice(1, limit + 1);
    // A long walk (a cold read back to the snapshots) decodes in bulk; extending the cached head by a few rows does not need to.
    if (visited.length > PREFETCH_ROWS) await reader.prefetch(rows.slice(0, limit + 1).reverse());
    const seeds = new Map<string, { value: unknown; bytes: number }>();
    const stopAt = new Map<string, number>();
    const open = new Set(pending);
    for (const [position, row] of visited.entries()) {
      if (open.size === 0) break;
      const { record } = await reader.record(row);
      for (const channel of [...open]) {
        const location = record.header.located[channel];
        if (location === undefined) continue;
        seeds.set(channel, await loadValue(context, reader, row, record, channel, location));
        stopAt.set(channel, position);
        open.delete(channel);
      }
    }
    const lastNeeded = Math.max(
      ...[...pending].map((channel) => stopAt.get(channel) ?? visited.length - 1),
      -1,
    );
    const writesAt: { write: CheckpointPendingWrite; bytes: number }[][] = [];
    for (let position = 0; position <= lastNeeded; position += 1) {
      const row = visited[position] as StoredRow;
      const decoded: { write: CheckpointPendingWrite; bytes: number }[] = [];
      for (const write of await sortedWrites(reader, row)) {
        if (!pending.has(write.channel)) continue;
        decoded.push({
          write: [write.taskId, write.channel, await context.serde.loadsTyped(write.type, write.bytes)],
          bytes: write.bytes.byteLength,
        });
      }
      writesAt.push(decoded);
    }
    for (const channel of pending) {
      const stop = stopAt.get(channel);
      const last = stop ?? visited.length - 1;
      const collected: CheckpointPendingWrite[] = [];
      const base = extend && stop === undefined ? cached?.channels.get(channel) : undefined;
      const seed = stop !== undefined ? seeds.get(channel) : base?.seed;
      // The base's bytes are its seed's and its writes'; a new seed's are counted here.
      let bytes = base !== undefined ? base.bytes : (seed?.bytes ?? 0);
      if (base !== undefined) collected.push(...base.writes);
      for (let position = last; position >= 0; position -= 1) {
        for (const { write, bytes: stored } of writesAt[position] ?? []) {
          if (write[1] !== channel) continue;
          collected.push(write);
          bytes += stored;
        }
      }
      entry.channels.set(
        channel,
        seed === undefined ? { writes: collected, bytes } : { seed, writes: collected, bytes },
      );
    }
    for (let position = 0; position <= lastNeeded; position += 1) {
      entry.included.add((visited[position] as StoredRow).checkpointId);
    }
    if (extend && cached !== undefined) {
      for (const id of cached.included) entry.included.add(id);
    }
  }
  options.cache?.set(threadKey, entry);
  return publish(entry, channels);
}

/** Whether each of `channels` holds a value (its seed) in one of `rows`. */
async function seedsWithin(reader: ChainReader, rows: readonly StoredRow[], channels: readonly string[]) {
  const open = new Set(channels);
  for (const row of rows) {
    if (open.size === 0) break;
    const { record } = await reader.record(row);
    for (const channel of open) if (record.header.located[channel] !== undefined) open.delete(channel);
  }
  return open.size === 0;
}

/** The histories of `channels` as LangGraph takes them: fresh arrays, shared values. */
function publish(entry: HistoryEntry, channels: readonly string[]): Record<string, DeltaChannelHistory> {
  const result: Record<string, DeltaChannelHistory> = {};
  for (const channel of channels) {
    const history = entry.channels.get(channel);
    const out: DeltaChannelHistory = { writes: [...(history?.writes ?? [])] };
    if (history?.seed !== undefined) out.seed = history.seed.value;
    result[channel] = out;
  }
  return result;
}

async function countersOf(
  context: SaverContext,
  type: string,
  bytes: Uint8Array,
): Promise<Record<string, unknown> | undefined> {
  const metadata = (await context.serde.loadsTyped(type, bytes)) as {
    counters_since_delta_snapshot?: Record<string, unknown>;
  };
  return metadata?.counters_since_delta_snapshot;
}

function configString(config: RunnableConfig, key: string): string | undefined {
  const value: unknown = config.configurable?.[key];
  return value === undefined || value === null ? undefined : String(value);
}
