import { compareWritesSortKeys, writesSortKey } from '@langchain/langgraph-checkpoint';
import {
  type CheckpointRecord,
  decodeWritesRecord,
  encodeWritesRecord,
  type StoredWrite,
} from './checkpoint-record.ts';
import {
  CHECKPOINT_COLUMNS,
  type CheckpointRow,
  checkpointFrom,
  decodeCheckpointRow,
  writesDictionary,
} from './checkpoint-rows.ts';
import { decodeId, encodeId } from './id-codec.ts';
import { needsBase } from './record-codec.ts';
import type { SaverContext } from './saver-context.ts';
import { rowBytes, type SqlExecutor } from './sql-driver.ts';

/** One pending write as read back, with its task. */
export type LoadedWrite = StoredWrite & { taskId: string; taskPath: string };

/**
 * Pending writes of the given checkpoints, each list in `writesSortKey` order. `rows` are
 * checkpoint rows already decoded (their dictionaries decode the writes); others are read.
 */
export async function loadWrites(
  context: SaverContext,
  executor: SqlExecutor,
  threadKey: number,
  checkpointIds: readonly string[],
  records: Map<string, CheckpointRow>,
): Promise<Map<string, LoadedWrite[]>> {
  const byCheckpoint = new Map<string, LoadedWrite[]>();
  for (let start = 0; start < checkpointIds.length; start += 500) {
    const slice = checkpointIds.slice(start, start + 500);
    const rows = await executor.all(
      `SELECT checkpoint_id, task_id, data FROM ${context.tables.writes} WHERE thread = ? AND checkpoint_id IN (${slice.map(() => '?').join(', ')})`,
      [threadKey, ...slice.map(encodeId)],
    );
    for (const row of rows) {
      const checkpointId = decodeId(rowBytes(row, 'checkpoint_id') ?? new Uint8Array());
      const taskId = decodeId(rowBytes(row, 'task_id') ?? new Uint8Array());
      const data = rowBytes(row, 'data') ?? new Uint8Array();
      let base: Uint8Array | undefined;
      if (needsBase(data)) {
        let holder = records.get(checkpointId);
        if (holder === undefined) {
          const found = await executor.all(
            `SELECT ${CHECKPOINT_COLUMNS} FROM ${checkpointFrom(context.tables)} WHERE c.thread = ? AND c.checkpoint_id = ?`,
            [threadKey, encodeId(checkpointId)],
          );
          holder = found[0] === undefined ? undefined : decodeCheckpointRow(found[0]);
          if (holder !== undefined) records.set(checkpointId, holder);
        }
        base = holder === undefined ? undefined : writesDictionary(holder);
      }
      const decoded = decodeWritesRecord(data, base);
      const list = byCheckpoint.get(checkpointId) ?? [];
      for (const write of decoded.writes) list.push({ ...write, taskId, taskPath: decoded.taskPath });
      byCheckpoint.set(checkpointId, list);
    }
  }
  for (const list of byCheckpoint.values()) {
    list.sort((a, b) =>
      compareWritesSortKeys(
        writesSortKey(a.taskPath, a.taskId, a.idx),
        writesSortKey(b.taskPath, b.taskId, b.idx),
      ),
    );
  }
  return byCheckpoint;
}

/**
 * Re-encodes a checkpoint's pending writes against its (new) dictionary: writes that arrived
 * before their checkpoint, or a checkpoint put again with other values.
 */
export async function reencodeWrites(
  context: SaverContext,
  executor: SqlExecutor,
  options: {
    threadKey: number;
    checkpointId: string;
    previous: CheckpointRow | undefined;
    current: CheckpointRecord;
    baseHeaderBytes: Uint8Array | undefined;
  },
): Promise<void> {
  const rows = await executor.all(
    `SELECT task_id, data FROM ${context.tables.writes} WHERE thread = ? AND checkpoint_id = ?`,
    [options.threadKey, encodeId(options.checkpointId)],
  );
  if (rows.length === 0) return;
  const before = options.previous === undefined ? undefined : writesDictionary(options.previous);
  const after = writesDictionary({ baseHeaderBytes: options.baseHeaderBytes, record: options.current });
  for (const row of rows) {
    const bytes = rowBytes(row, 'data') ?? new Uint8Array();
    const decoded = decodeWritesRecord(bytes, needsBase(bytes) ? before : undefined);
    const data = encodeWritesRecord({
      taskPath: decoded.taskPath,
      writes: decoded.writes,
      compression: context.compression,
      ...(after === undefined ? {} : { base: after }),
    });
    await executor.run(
      `UPDATE ${context.tables.writes} SET data = ? WHERE thread = ? AND checkpoint_id = ? AND task_id = ?`,
      [data, options.threadKey, encodeId(options.checkpointId), rowBytes(row, 'task_id') ?? new Uint8Array()],
    );
  }
}
