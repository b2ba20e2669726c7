import type { CheckpointTables } from './checkpoint-schema.ts';
import { decodeId } from './id-codec.ts';
import { rowBytes, type SqlRow } from './sql-driver.ts';

/** One row of the checkpoints table as stored (records still encoded). */
export interface StoredRow {
  threadKey: number;
  checkpointId: string;
  parentId: string | undefined;
  /** Records back to the self-contained one this row's chain starts at (0: this one). */
  depth: number;
  /** The checkpoint record; undefined for a row holding only writes that arrived first. */
  data: Uint8Array | undefined;
  /** All pending writes of the checkpoint; undefined when none. */
  writes: Uint8Array | undefined;
}

/** Columns {@link storedRowOf} reads, from `checkpoints c`. */
export const ROW_COLUMNS = 'c.thread, c.depth, c.checkpoint_id, c.parent_id, c.data, c.writes';

/** Reads a row selected with {@link ROW_COLUMNS}. */
export function storedRowOf(row: SqlRow): StoredRow {
  const parent = rowBytes(row, 'parent_id');
  return {
    threadKey: Number(row.thread),
    checkpointId: decodeId(rowBytes(row, 'checkpoint_id') ?? new Uint8Array()),
    parentId: parent === undefined ? undefined : decodeId(parent),
    depth: Number(row.depth ?? 0),
    data: rowBytes(row, 'data'),
    writes: rowBytes(row, 'writes'),
  };
}

/** Map key of a row: thread key and checkpoint id. */
export function rowKey(threadKey: number, checkpointId: string): string {
  return `${threadKey}\u0000${checkpointId}`;
}

/**
 * Rows of the chain ending at (`threadKey`, `checkpointId`): that row, its parent, … back
 * to the first self-contained one (depth 0), at most `levels` + 1 rows. One query.
 */
export function chainQuery(tables: CheckpointTables): string {
  const cp = tables.checkpoints;
  return `WITH RECURSIVE chain(thread, depth, checkpoint_id, parent_id, data, writes, level) AS (
       SELECT thread, depth, checkpoint_id, parent_id, data, writes, 0 FROM ${cp} WHERE thread = ? AND checkpoint_id = ?
       UNION ALL
       SELECT p.thread, p.depth, p.checkpoint_id, p.parent_id, p.data, p.writes, chain.level + 1
         FROM chain JOIN ${cp} p ON p.thread = chain.thread AND p.checkpoint_id = chain.parent_id
         WHERE chain.depth > 0 AND chain.level < ?
     )
     SELECT thread, depth, checkpoint_id, parent_id, data, writes FROM chain`;
}
