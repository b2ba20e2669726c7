import { compareWritesSortKeys, writesSortKey } from '@langchain/langgraph-checkpoint';
import type { ChainReader } from './chain-reader.ts';
import { ROW_COLUMNS, type StoredRow, storedRowOf } from './checkpoint-rows.ts';
import type { CheckpointTables } from './checkpoint-schema.ts';
import { encodeId } from './id-codec.ts';
import type { SqlExecutor } from './sql-driver.ts';
import type { StoredWrite } from './writes-record.ts';

/** A checkpoint's pending writes in LangGraph's `writesSortKey` order (task path, task id, idx). */
export async function sortedWrites(reader: ChainReader, row: StoredRow): Promise<StoredWrite[]> {
  return sortWrites(await reader.writes(row));
}

/** A copy of `log` in LangGraph's `writesSortKey` order. */
export function sortWrites(log: readonly StoredWrite[]): StoredWrite[] {
  const writes = [...log];
  writes.sort((a, b) =>
    compareWritesSortKeys(
      writesSortKey(a.taskPath, a.taskId, a.idx),
      writesSortKey(b.taskPath, b.taskId, b.idx),
    ),
  );
  return writes;
}

/**
 * Reads one checkpoint row for a change, locking it on PostgreSQL (`FOR UPDATE`) so
 * concurrent `put`/`putWrites` on the same checkpoint from other processes queue behind
 * this transaction; SQLite transactions are exclusive already.
 */
export async function lockRow(
  executor: SqlExecutor,
  tables: CheckpointTables,
  postgres: boolean,
  threadKey: number,
  checkpointId: string,
): Promise<StoredRow | undefined> {
  const rows = await executor.all(
    `SELECT ${ROW_COLUMNS} FROM ${tables.checkpoints} c WHERE c.thread = ? AND c.checkpoint_id = ?${postgres ? ' FOR UPDATE' : ''}`,
    [threadKey, encodeId(checkpointId)],
  );
  return rows[0] === undefined ? undefined : storedRowOf(rows[0]);
}

/**
 * The row of a checkpoint, locked, created as a writes-only placeholder (no record yet)
 * when the checkpoint has not been put: LangGraph may save a task's writes before the
 * checkpoint they belong to.
 */
export async function lockOrCreateRow(
  executor: SqlExecutor,
  tables: CheckpointTables,
  postgres: boolean,
  threadKey: number,
  checkpointId: string,
): Promise<StoredRow> {
  const found = await lockRow(executor, tables, postgres, threadKey, checkpointId);
  if (found !== undefined) return found;
  await executor.run(
    `INSERT INTO ${tables.checkpoints} (thread, depth, checkpoint_id) VALUES (?, 0, ?) ON CONFLICT (thread, checkpoint_id) DO NOTHING`,
    [threadKey, encodeId(checkpointId)],
  );
  const created = await lockRow(executor, tables, postgres, threadKey, checkpointId);
  if (created === undefined) throw new Error(`checkpoint row ${checkpointId} vanished while being written`);
  return created;
}
