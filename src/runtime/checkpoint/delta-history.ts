import type { RunnableConfig } from '@langchain/core/runnables';
import {
  type CheckpointPendingWrite,
  type DeltaChannelHistory,
  getCheckpointId,
} from '@langchain/langgraph-checkpoint';
import {
  CHECKPOINT_COLUMNS,
  type CheckpointRow,
  checkpointJoins,
  decodeCheckpointRow,
} from './checkpoint-rows.ts';
import { decodeId, encodeId } from './id-codec.ts';
import { loadValue } from './locate-values.ts';
import { loadWrites } from './pending-writes.ts';
import type { SaverContext } from './saver-context.ts';
import { rowBytes, type SqlDriver } from './sql-driver.ts';

/**
 * `BaseCheckpointSaver.getDeltaChannelHistory` in one recursive query: walks the parent
 * chain of the target checkpoint (its parent first), stops per channel at the nearest
 * ancestor where the channel holds a value (the seed), and returns each channel's writes
 * oldest first, each checkpoint's writes in `writesSortKey` order.
 */
export async function deltaChannelHistory(options: {
  context: SaverContext;
  driver: SqlDriver;
  config: RunnableConfig;
  channels: string[];
}): Promise<Record<string, DeltaChannelHistory>> {
  const { context, driver, config, channels } = options;
  if (channels.length === 0) return {};
  const result: Record<string, DeltaChannelHistory> = {};
  for (const channel of channels) result[channel] = { writes: [] };
  const threadId = configString(config, 'thread_id');
  if (threadId === undefined) return result;
  const namespace = configString(config, 'checkpoint_ns') ?? '';
  const keyRows = await driver.all(
    `SELECT id FROM ${context.tables.threads} WHERE thread_id = ? AND checkpoint_ns = ?`,
    [threadId, namespace],
  );
  if (keyRows[0] === undefined) return result;
  const threadKey = Number(keyRows[0].id);
  let targetId = getCheckpointId(config);
  if (!targetId) {
    const latest = await driver.all(
      `SELECT checkpoint_id FROM ${context.tables.checkpoints} WHERE thread = ? ORDER BY checkpoint_id DESC LIMIT 1`,
      [threadKey],
    );
    targetId =
      latest[0] === undefined ? '' : decodeId(rowBytes(latest[0], 'checkpoint_id') ?? new Uint8Array());
  }
  if (!targetId) return result;
  const cp = context.tables.checkpoints;
  const chain = await driver.all(
    `WITH RECURSIVE chain(seq, depth) AS (
       SELECT seq, 0 FROM ${cp} WHERE thread = ? AND checkpoint_id = ?
       UNION ALL
       SELECT parent.seq, chain.depth + 1 FROM chain JOIN ${cp} x ON x.seq = chain.seq
         JOIN ${cp} parent ON parent.seq = COALESCE(x.parent_seq, (SELECT y.seq FROM ${cp} y WHERE y.thread = x.thread AND y.checkpoint_id = x.parent_checkpoint_id))
     )
     SELECT ${CHECKPOINT_COLUMNS}, chain.depth FROM chain JOIN ${cp} c ON c.seq = chain.seq ${checkpointJoins(context.tables)} WHERE chain.depth > 0 ORDER BY chain.depth`,
    [threadKey, encodeId(targetId)],
  );
  const remaining = new Set(channels);
  const bases = new Map<number, Uint8Array>();
  const visited: string[] = [];
  const records = new Map<string, CheckpointRow>();
  const seeds = new Map<string, unknown>();
  const stopAt = new Map<string, number>();
  for (const [position, raw] of chain.entries()) {
    if (remaining.size === 0) break;
    const row = decodeCheckpointRow(raw, bases);
    visited.push(row.checkpointId);
    records.set(row.checkpointId, row);
    for (const channel of [...remaining]) {
      const location = row.record.header.located[channel];
      if (location === undefined) continue;
      seeds.set(channel, await loadValue(context, driver, row.seq, row.record, channel, location));
      stopAt.set(channel, position);
      remaining.delete(channel);
    }
  }
  const writesByCheckpoint = await loadWrites(context, driver, threadKey, visited, records);
  for (const channel of channels) {
    const last = stopAt.get(channel) ?? visited.length - 1;
    const collected: CheckpointPendingWrite[] = [];
    for (let position = last; position >= 0; position -= 1) {
      const writes = writesByCheckpoint.get(visited[position] ?? '') ?? [];
      for (const write of writes) {
        if (write.channel !== channel) continue;
        collected.push([write.taskId, channel, await context.serde.loadsTyped(write.type, write.bytes)]);
      }
    }
    const entry: DeltaChannelHistory = { writes: collected };
    if (seeds.has(channel)) entry.seed = seeds.get(channel);
    result[channel] = entry;
  }
  return result;
}

function configString(config: RunnableConfig, key: string): string | undefined {
  const value: unknown = config.configurable?.[key];
  return value === undefined || value === null ? undefined : String(value);
}
