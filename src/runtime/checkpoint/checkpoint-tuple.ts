import {
  type Checkpoint,
  type CheckpointMetadata,
  type CheckpointPendingWrite,
  type CheckpointTuple,
  maxChannelVersion,
  TASKS,
} from '@langchain/langgraph-checkpoint';
import type { ChainReader } from './chain-reader.ts';
import { ROW_COLUMNS, type StoredRow, storedRowOf } from './checkpoint-rows.ts';
import type { CheckpointTables } from './checkpoint-schema.ts';
import { loadChannelValues } from './locate-values.ts';
import { sortedWrites } from './pending-writes.ts';
import type { SaverContext } from './saver-context.ts';
import { rowBytes, type SqlRow } from './sql-driver.ts';
import { parseThreadName } from './thread-keys.ts';

/** A checkpoint row with the thread id and namespace its thread key stands for. */
export type NamedRow = StoredRow & { threadId: string; namespace: string };

/** Checkpoint rows `c` with the name row `t` of their (thread, namespace), as `name`. */
export const SELECT_NAMED = (tables: CheckpointTables) =>
  `SELECT ${ROW_COLUMNS}, t.writes AS name FROM ${tables.checkpoints} c JOIN ${tables.checkpoints} t ON t.thread = c.thread AND t.checkpoint_id = ?`;

/** A row of {@link SELECT_NAMED} with its thread id and namespace. */
export function parseNamedRow(row: SqlRow): NamedRow {
  return { ...storedRowOf(row), ...parseThreadName(rowBytes(row, 'name') ?? new Uint8Array()) };
}

/**
 * The `CheckpointTuple` of a stored checkpoint: its record, channel values (read from the
 * checkpoints holding them), metadata, pending writes in `writesSortKey` order, and parent.
 * A checkpoint older than format 4 gets its pending sends from the parent's writes, as
 * LangGraph's own savers do.
 */
export async function checkpointTuple(options: {
  context: SaverContext;
  reader: ChainReader;
  row: NamedRow;
  /** The saver's first channel version (`getNextVersion(undefined)`). */
  nextVersion: () => string | number;
}): Promise<CheckpointTuple> {
  const { context, reader, row } = options;
  const { record } = await reader.record(row);
  const checkpoint: Checkpoint = {
    ...structuredClone(record.header.checkpoint),
    id: row.checkpointId,
    channel_values: await loadChannelValues(context, reader, row, record),
  };
  const pendingWrites: CheckpointPendingWrite[] = [];
  for (const write of await sortedWrites(reader, row)) {
    pendingWrites.push([
      write.taskId,
      write.channel,
      await context.serde.loadsTyped(write.type, write.bytes),
    ]);
  }
  if (checkpoint.v < 4 && row.parentId !== undefined) {
    await reader.load(row.threadKey, [row.parentId]);
    const parent = reader.row(row.threadKey, row.parentId);
    const sends = (parent === undefined ? [] : await sortedWrites(reader, parent))
      .filter((write) => write.channel === TASKS)
      .sort((a, b) => (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : a.idx - b.idx));
    const values: unknown[] = [];
    for (const send of sends) values.push(await context.serde.loadsTyped(send.type, send.bytes));
    (checkpoint.channel_values as Record<string, unknown>)[TASKS] = values;
    const versions = Object.values(checkpoint.channel_versions);
    (checkpoint.channel_versions as Record<string, string | number>)[TASKS] =
      versions.length > 0 ? maxChannelVersion(...versions) : options.nextVersion();
  }
  const configOf = (checkpointId: string) => ({
    configurable: { thread_id: row.threadId, checkpoint_ns: row.namespace, checkpoint_id: checkpointId },
  });
  return {
    config: configOf(row.checkpointId),
    checkpoint,
    metadata: (await context.serde.loadsTyped(
      record.header.metadataType,
      record.metadata,
    )) as CheckpointMetadata,
    pendingWrites,
    ...(row.parentId === undefined ? {} : { parentConfig: configOf(row.parentId) }),
  };
}
