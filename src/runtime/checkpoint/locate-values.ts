import type { ChannelVersions } from '@langchain/langgraph-checkpoint';
import { CtxloomError } from '../../core/errors.ts';
import type { CheckpointRecord } from './checkpoint-record.ts';
import {
  CHECKPOINT_COLUMNS,
  type CheckpointRow,
  checkpointFrom,
  decodeCheckpointRow,
} from './checkpoint-rows.ts';
import type { CheckpointTables } from './checkpoint-schema.ts';
import { encodeId } from './id-codec.ts';
import type { SaverContext } from './saver-context.ts';
import type { SqlExecutor } from './sql-driver.ts';

/** Deserialises the value of `channel` from the record that holds it (`location` 0 = `record`). */
export async function loadValue(
  context: SaverContext,
  executor: SqlExecutor,
  seq: number,
  record: CheckpointRecord,
  channel: string,
  location: number,
  holders?: ReadonlyMap<number, CheckpointRecord>,
): Promise<unknown> {
  let holder = location === 0 || location === seq ? record : holders?.get(location);
  if (holder === undefined) {
    const rows = await executor.all(
      `SELECT ${CHECKPOINT_COLUMNS} FROM ${checkpointFrom(context.tables)} WHERE c.seq = ?`,
      [location],
    );
    if (rows[0] === undefined) {
      throw new CtxloomError({
        code: 'storage-error',
        message: `value of channel ${channel} is missing (record ${location})`,
        path: channel,
      });
    }
    holder = decodeCheckpointRow(rows[0]).record;
  }
  const value = holder.values.get(channel);
  if (value === undefined) {
    throw new CtxloomError({
      code: 'storage-error',
      message: `value of channel ${channel} is missing`,
      path: channel,
    });
  }
  return context.serde.loadsTyped(value[0], value[1]);
}

/** The records at `seqs`, read in one query (for a tuple whose values live in several). */
export async function loadHolders(
  context: SaverContext,
  executor: SqlExecutor,
  seqs: readonly number[],
): Promise<Map<number, CheckpointRecord>> {
  const holders = new Map<number, CheckpointRecord>();
  if (seqs.length === 0) return holders;
  const rows = await executor.all(
    `SELECT ${CHECKPOINT_COLUMNS} FROM ${checkpointFrom(context.tables)} WHERE c.seq IN (${seqs.map(() => '?').join(', ')})`,
    [...seqs],
  );
  const bases = new Map<number, Uint8Array>();
  for (const raw of rows) {
    const row = decodeCheckpointRow(raw, bases);
    holders.set(row.seq, row.record);
  }
  return holders;
}

/**
 * Where each channel's current value lives for a checkpoint being put: here (0) when it
 * changed at this step, else the parent's pointer when the version matches, else the
 * newest record storing that version. Also returns the parent row.
 */
export async function locateValues(
  context: SaverContext,
  executor: SqlExecutor,
  options: {
    threadKey: number;
    parentId: string | undefined;
    channelVersions: ChannelVersions;
    newVersions: ChannelVersions;
    stored: Map<string, unknown>;
    /** The parent row when the caller already read it (`null`: known to be absent). */
    parent?: CheckpointRow | null;
  },
): Promise<{ located: Record<string, number>; parent: CheckpointRow | undefined }> {
  const located: Record<string, number> = {};
  let parent: CheckpointRow | undefined = options.parent ?? undefined;
  if (options.parent === undefined && options.parentId) {
    const rows = await executor.all(
      `SELECT ${CHECKPOINT_COLUMNS} FROM ${checkpointFrom(context.tables)} WHERE c.thread = ? AND c.checkpoint_id = ?`,
      [options.threadKey, encodeId(options.parentId)],
    );
    if (rows[0] !== undefined) parent = decodeCheckpointRow(rows[0]);
  }
  for (const [channel, version] of Object.entries(options.channelVersions)) {
    if (Object.hasOwn(options.newVersions, channel)) {
      if (options.stored.has(channel)) located[channel] = 0;
      continue;
    }
    const parentLocation = parent?.record.header.located[channel];
    if (parent !== undefined && parent.record.header.checkpoint.channel_versions[channel] === version) {
      if (parentLocation !== undefined) located[channel] = parentLocation === 0 ? parent.seq : parentLocation;
      continue;
    }
    const found = await findStoredVersion(executor, context.tables, options.threadKey, channel, version);
    if (found !== undefined) located[channel] = found;
  }
  return { located, parent };
}

/** Slow path for a put whose parent is unknown: the newest record storing `channel` at `version`. */
async function findStoredVersion(
  executor: SqlExecutor,
  tables: CheckpointTables,
  threadKey: number,
  channel: string,
  version: string | number,
): Promise<number | undefined> {
  const rows = await executor.all(
    `SELECT ${CHECKPOINT_COLUMNS} FROM ${checkpointFrom(tables)} WHERE c.thread = ? ORDER BY c.seq DESC`,
    [threadKey],
  );
  for (const raw of rows) {
    const { record, seq } = decodeCheckpointRow(raw);
    if (record.values.has(channel) && record.header.checkpoint.channel_versions[channel] === version)
      return seq;
  }
  return undefined;
}

/** The integer key of a (thread, namespace), created on first use. */
export async function internThread(
  executor: SqlExecutor,
  tables: CheckpointTables,
  threadId: string,
  namespace: string,
): Promise<number> {
  const select = `SELECT id FROM ${tables.threads} WHERE thread_id = ? AND checkpoint_ns = ?`;
  // Look up first: after the first write of a thread this is one round trip, not two.
  const found = await executor.all(select, [threadId, namespace]);
  if (found[0] !== undefined) return Number(found[0].id);
  await executor.run(
    `INSERT INTO ${tables.threads} (thread_id, checkpoint_ns) VALUES (?, ?) ON CONFLICT (thread_id, checkpoint_ns) DO NOTHING`,
    [threadId, namespace],
  );
  const rows = await executor.all(select, [threadId, namespace]);
  return Number(rows[0]?.id);
}
