import { type ChannelVersions, DeltaSnapshot } from '@langchain/langgraph-checkpoint';
import { CtxloomError } from '../../core/errors.ts';
import type { ChainReader } from './chain-reader.ts';
import type { CheckpointRecord } from './checkpoint-record.ts';
import { ROW_COLUMNS, type StoredRow, storedRowOf } from './checkpoint-rows.ts';
import type { CheckpointTables } from './checkpoint-schema.ts';
import { sortWrites } from './pending-writes.ts';
import type { SaverContext } from './saver-context.ts';
import {
  decodeSnapshotDiff,
  decodeSnapshotRef,
  parseSnapshotRef,
  SNAPSHOT_DIFF_TYPE,
  SNAPSHOT_REF_TYPE,
  writeItems,
} from './snapshot-diff.ts';
import { type SnapshotItems, snapshotItems, snapshotJson, storedSnapshotItems } from './snapshot-list.ts';
import type { SqlExecutor } from './sql-driver.ts';

/**
 * The current values of a checkpoint's channels: each read from the record that holds it
 * (`located`: this record, or another checkpoint of the thread, read in one query).
 */
export async function loadChannelValues(
  context: SaverContext,
  reader: ChainReader,
  row: StoredRow,
  record: CheckpointRecord,
): Promise<Record<string, unknown>> {
  const elsewhere = Object.values(record.header.located).filter((id) => id !== '' && id !== row.checkpointId);
  await reader.load(row.threadKey, elsewhere);
  const values: Record<string, unknown> = {};
  for (const [channel, location] of Object.entries(record.header.located)) {
    values[channel] = (await loadValue(context, reader, row, record, channel, location)).value;
  }
  return values;
}

/**
 * Deserialises the value of `channel` from the record that holds it (`location` '' =
 * `record`), with the bytes it was decoded from (a snapshot stored as a difference or a
 * reference: the bytes of the whole snapshot it stands for).
 */
export async function loadValue(
  context: SaverContext,
  reader: ChainReader,
  row: StoredRow,
  record: CheckpointRecord,
  channel: string,
  location: string,
): Promise<{ value: unknown; bytes: number }> {
  const holderId = location === '' ? row.checkpointId : location;
  const known = context.snapshots?.value(row.threadKey, holderId, channel);
  if (known !== undefined) return known;
  const loaded = await decodeValue({ context, reader, row, record, channel, location, holderId });
  if (loaded.value instanceof DeltaSnapshot)
    context.snapshots?.setValue(row.threadKey, holderId, channel, loaded);
  return loaded;
}

/** {@link loadValue}'s arguments, and the checkpoint that holds the value (`holderId`). */
interface ValueAt {
  context: SaverContext;
  reader: ChainReader;
  row: StoredRow;
  record: CheckpointRecord;
  channel: string;
  location: string;
  holderId: string;
}

async function decodeValue(at: ValueAt): Promise<{ value: unknown; bytes: number }> {
  const { context, reader, row, record, channel, location, holderId } = at;
  let holder: CheckpointRecord | undefined = record;
  if (location !== '' && location !== row.checkpointId) {
    await reader.load(row.threadKey, [location]);
    const holderRow = reader.row(row.threadKey, location);
    holder = holderRow?.data === undefined ? undefined : (await reader.record(holderRow)).record;
  }
  const value = holder?.values.get(channel);
  if (value === undefined) {
    throw new CtxloomError({
      code: 'storage-error',
      message: `value of channel ${channel} is missing (checkpoint ${location || row.checkpointId})`,
      path: channel,
    });
  }
  if (value[0] !== SNAPSHOT_DIFF_TYPE && value[0] !== SNAPSHOT_REF_TYPE)
    return { value: await context.serde.loadsTyped(value[0], value[1]), bytes: value[1].byteLength };
  const items = await storedSnapshot(context, reader, row.threadKey, holderId, channel, value);
  const json = snapshotJson(items);
  try {
    return { value: await context.serde.loadsTyped('json', json), bytes: json.byteLength };
  } catch (error) {
    // A difference's tail is not parsed when decoded (decision 037): a broken one shows here.
    throw new CtxloomError({
      code: 'storage-error',
      message: `the snapshot of channel ${channel} at checkpoint ${holderId} does not parse: ${(error as Error).message}`,
      path: channel,
    });
  }
}

/**
 * The items of the snapshot of `channel` stored at `checkpointId` (`value`: its stored
 * [type, bytes]), following differences to their bases (decoded once, then remembered).
 */
export async function storedSnapshot(
  context: SaverContext,
  reader: ChainReader,
  threadKey: number,
  checkpointId: string,
  channel: string,
  value: [string, Uint8Array],
): Promise<SnapshotItems> {
  const known = context.snapshots?.decoded(threadKey, checkpointId, channel);
  if (known !== undefined) return known;
  let items: SnapshotItems | undefined;
  const baseItems = async (baseId: string) => {
    await reader.load(threadKey, [baseId]);
    const baseRow = reader.row(threadKey, baseId);
    const base =
      baseRow?.data === undefined ? undefined : (await reader.record(baseRow)).record.values.get(channel);
    if (base === undefined) {
      throw new CtxloomError({
        code: 'storage-error',
        message: `snapshot base ${baseId} of channel ${channel} is missing (checkpoint ${checkpointId})`,
        path: channel,
      });
    }
    return storedSnapshot(context, reader, threadKey, baseId, channel, base);
  };
  if (value[0] === SNAPSHOT_DIFF_TYPE) {
    items = await decodeSnapshotDiff(value[1], baseItems);
  } else if (value[0] === SNAPSHOT_REF_TYPE) {
    const ref = parseSnapshotRef(value[1]);
    const base = ref.base === '' ? { key: ref.key ?? undefined, items: [] } : await baseItems(ref.base);
    // A reader of its own: a cold load replays each segment once and keeps none of it decoded.
    const appended = await appendedItems(
      reader.fork(),
      threadKey,
      ref.from,
      ref.base,
      channel,
      ref.key ?? undefined,
    );
    if (appended === undefined) {
      throw new CtxloomError({
        code: 'storage-error',
        message: `the checkpoints from ${ref.base} to ${ref.from} a snapshot of channel ${channel} refers to are missing (checkpoint ${checkpointId})`,
        path: channel,
      });
    }
    items = decodeSnapshotRef(ref, base, appended);
  } else {
    items = storedSnapshotItems(value[1]);
    if (items === undefined) {
      throw new CtxloomError({
        code: 'storage-error',
        message: `value of channel ${channel} at checkpoint ${checkpointId} is not a list snapshot`,
        path: channel,
      });
    }
  }
  context.snapshots?.setDecoded(threadKey, checkpointId, channel, items);
  return items;
}

/**
 * The items the pending writes of `channel` append on the checkpoints from `baseId` to
 * `fromId` (along parents, both included), oldest first and in LangGraph's order within a
 * checkpoint; undefined when `baseId` is no ancestor of `fromId` or a write is not a list append.
 */
export async function appendedItems(
  reader: ChainReader,
  threadKey: number,
  fromId: string,
  baseId: string,
  channel: string,
  key: string | undefined,
): Promise<string[] | undefined> {
  const rows = await reader.path(threadKey, fromId, baseId);
  if (rows === undefined) return undefined;
  await reader.prefetch(rows);
  const items: string[] = [];
  for (const row of rows) {
    for (const write of sortWrites(await reader.replayedWrites(row))) {
      if (write.channel !== channel) continue;
      const own = writeItems(write.type, write.bytes, key);
      if (own === undefined) return undefined;
      for (const item of own) items.push(item);
    }
  }
  return items;
}

/**
 * The latest stored snapshot of `channel` on the path from `fromId` back to the thread's
 * start: the checkpoint whose record stores it and its items — id `''` and no items when the
 * path holds none; undefined when it was moved into another record (prune) or is no list.
 */
export async function previousSnapshot(
  context: SaverContext,
  reader: ChainReader,
  threadKey: number,
  fromId: string,
  channel: string,
  key: string | undefined,
): Promise<{ checkpointId: string; snapshot: SnapshotItems } | undefined> {
  let cursor: string | undefined = fromId;
  while (cursor !== undefined) {
    const rows = await reader.ancestors(threadKey, cursor, 255);
    for (const row of rows) {
      const { record } = await reader.record(row);
      const location = record.header.located[channel];
      if (location === undefined) continue;
      const value = record.values.get(channel);
      if (location !== '' || value === undefined) return undefined;
      if (value[0] !== 'json' && value[0] !== SNAPSHOT_DIFF_TYPE && value[0] !== SNAPSHOT_REF_TYPE)
        return undefined;
      if (value[0] === 'json' && snapshotItems(Buffer.from(value[1]).toString('utf8')) === undefined)
        return undefined;
      return {
        checkpointId: row.checkpointId,
        snapshot: await storedSnapshot(context, reader, threadKey, row.checkpointId, channel, value),
      };
    }
    const last: StoredRow | undefined = rows.at(-1);
    if (last !== undefined && last.parentId === undefined)
      return { checkpointId: '', snapshot: { key, items: [] } };
    cursor = rows.length === 256 ? last?.parentId : undefined;
  }
  return undefined;
}

/**
 * Where each channel's current value lives for a checkpoint being put: here ('') when it
 * changed at this step, else the parent's pointer when the version matches, else the
 * newest checkpoint of the thread storing that version.
 */
export async function locateValues(
  context: SaverContext,
  executor: SqlExecutor,
  reader: ChainReader,
  options: {
    threadKey: number;
    parent: { row: StoredRow; record: CheckpointRecord } | undefined;
    channelVersions: ChannelVersions;
    newVersions: ChannelVersions;
    stored: Map<string, unknown>;
  },
): Promise<Record<string, string>> {
  const located: Record<string, string> = {};
  const { parent } = options;
  for (const [channel, version] of Object.entries(options.channelVersions)) {
    if (Object.hasOwn(options.newVersions, channel)) {
      if (options.stored.has(channel)) located[channel] = '';
      continue;
    }
    if (parent !== undefined && parent.record.header.checkpoint.channel_versions[channel] === version) {
      const location = parent.record.header.located[channel];
      if (location !== undefined) located[channel] = location === '' ? parent.row.checkpointId : location;
      continue;
    }
    const found = await findStoredVersion(
      context.tables,
      executor,
      reader,
      options.threadKey,
      channel,
      version,
    );
    if (found !== undefined) located[channel] = found;
  }
  return located;
}

/** Slow path for a put whose parent is unknown: the newest checkpoint storing `channel` at `version`. */
async function findStoredVersion(
  tables: CheckpointTables,
  executor: SqlExecutor,
  reader: ChainReader,
  threadKey: number,
  channel: string,
  version: string | number,
): Promise<string | undefined> {
  const rows = (
    await executor.all(
      `SELECT ${ROW_COLUMNS} FROM ${tables.checkpoints} c WHERE c.thread = ? AND c.data IS NOT NULL ORDER BY c.checkpoint_id DESC`,
      [threadKey],
    )
  ).map(storedRowOf);
  reader.add(...rows);
  for (const row of rows) {
    const { record } = await reader.record(row);
    if (record.values.has(channel) && record.header.checkpoint.channel_versions[channel] === version)
      return row.checkpointId;
  }
  return undefined;
}
