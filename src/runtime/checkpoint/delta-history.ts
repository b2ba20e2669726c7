import type { RunnableConfig } from '@langchain/core/runnables';
import {
  type CheckpointPendingWrite,
  type DeltaChannelHistory,
  getCheckpointId,
} from '@langchain/langgraph-checkpoint';
import { ChainReader } from './chain-reader.ts';
import { ROW_COLUMNS, type StoredRow, storedRowOf } from './checkpoint-rows.ts';
import { decodeId, encodeId } from './id-codec.ts';
import { loadValue } from './locate-values.ts';
import { sortedWrites } from './pending-writes.ts';
import type { SaverContext } from './saver-context.ts';
import { rowBytes, type SqlExecutor } from './sql-driver.ts';
import { findThreadKey, threadName } from './thread-keys.ts';

/**
 * `BaseCheckpointSaver.getDeltaChannelHistory` in one recursive query: walks the parent
 * chain of the target checkpoint (its parent first), stops per channel at the nearest
 * ancestor where the channel holds a value (the seed), and returns each channel's writes
 * oldest first, each checkpoint's writes in `writesSortKey` order.
 */
export async function deltaChannelHistory(options: {
  context: SaverContext;
  executor: SqlExecutor;
  config: RunnableConfig;
  channels: string[];
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
  const chain = await executor.all(
    `WITH RECURSIVE chain(thread, depth, checkpoint_id, parent_id, data, writes, level) AS (
       SELECT thread, depth, checkpoint_id, parent_id, data, writes, 0 FROM ${cp} WHERE thread = ? AND checkpoint_id = ? AND data IS NOT NULL
       UNION ALL
       SELECT p.thread, p.depth, p.checkpoint_id, p.parent_id, p.data, p.writes, chain.level + 1
         FROM chain JOIN ${cp} p ON p.thread = chain.thread AND p.checkpoint_id = chain.parent_id AND p.data IS NOT NULL
     )
     SELECT ${ROW_COLUMNS.replaceAll('c.', '')} FROM chain WHERE level > 0 ORDER BY level`,
    [threadKey, encodeId(targetId)],
  );
  const reader = new ChainReader(context, executor);
  const rows = chain.map(storedRowOf);
  reader.add(...rows);
  const remaining = new Set(channels);
  const visited: StoredRow[] = [];
  const seeds = new Map<string, unknown>();
  const stopAt = new Map<string, number>();
  for (const [position, row] of rows.entries()) {
    if (remaining.size === 0) break;
    const { record } = await reader.record(row);
    visited.push(row);
    for (const channel of [...remaining]) {
      const location = record.header.located[channel];
      if (location === undefined) continue;
      seeds.set(channel, await loadValue(context, reader, row, record, channel, location));
      stopAt.set(channel, position);
      remaining.delete(channel);
    }
  }
  const writesByPosition = await Promise.all(visited.map((row) => sortedWrites(reader, row)));
  for (const channel of channels) {
    const last = stopAt.get(channel) ?? visited.length - 1;
    const collected: CheckpointPendingWrite[] = [];
    for (let position = last; position >= 0; position -= 1) {
      for (const write of writesByPosition[position] ?? []) {
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
