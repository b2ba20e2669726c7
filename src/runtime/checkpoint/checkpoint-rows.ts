import { type CheckpointRecord, decodeCheckpointRecord, ownValuesBytes } from './checkpoint-record.ts';
import type { CheckpointTables } from './checkpoint-schema.ts';
import { decodeId } from './id-codec.ts';
import { rowBytes, type SqlRow } from './sql-driver.ts';

/** One decoded row of the checkpoints table. */
export interface CheckpointRow {
  seq: number;
  /** Record whose header this one was deflated against; undefined for a self-contained one. */
  baseSeq: number | undefined;
  /** Header bytes of the base, when there is one. */
  baseHeaderBytes: Uint8Array | undefined;
  threadKey: number;
  checkpointId: string;
  parentId: string | undefined;
  /** The parent's `seq` when the parent is stored. */
  parentSeq: number | undefined;
  record: CheckpointRecord;
}

/**
 * Columns to select for {@link decodeCheckpointRow}, from `checkpoints c` joined with its
 * base `b`: `FROM ${checkpointFrom(tables)}`.
 */
export const CHECKPOINT_COLUMNS =
  'c.seq, c.thread, c.checkpoint_id, c.parent_seq, c.parent_checkpoint_id, p.checkpoint_id AS parent_by_seq, c.base_seq, c.data, b.data AS base_data';

/** `checkpoints c` with its base `b` and its parent `p` (for the parent's id). */
export function checkpointFrom(tables: CheckpointTables): string {
  return `${tables.checkpoints} c ${checkpointJoins(tables)}`;
}

/** The joins {@link CHECKPOINT_COLUMNS} needs, for a query that already has `c`. */
export function checkpointJoins(tables: CheckpointTables): string {
  return `LEFT JOIN ${tables.checkpoints} b ON b.seq = c.base_seq LEFT JOIN ${tables.checkpoints} p ON p.seq = c.parent_seq`;
}

/**
 * Decodes a row selected with {@link CHECKPOINT_COLUMNS}. Pass `bases` when decoding many
 * rows of one thread: each base record is then inflated once, not once per row using it.
 */
export function decodeCheckpointRow(row: SqlRow, bases?: Map<number, Uint8Array>): CheckpointRow {
  const baseSeq = row.base_seq === null || row.base_seq === undefined ? undefined : Number(row.base_seq);
  let baseHeaderBytes = baseSeq === undefined ? undefined : bases?.get(baseSeq);
  if (baseHeaderBytes === undefined) {
    const baseBytes = rowBytes(row, 'base_data');
    baseHeaderBytes = baseBytes === undefined ? undefined : decodeCheckpointRecord(baseBytes).headerBytes;
    if (baseSeq !== undefined && baseHeaderBytes !== undefined) bases?.set(baseSeq, baseHeaderBytes);
  }
  const parent = rowBytes(row, 'parent_by_seq') ?? rowBytes(row, 'parent_checkpoint_id');
  return {
    seq: Number(row.seq),
    baseSeq,
    baseHeaderBytes,
    threadKey: Number(row.thread),
    checkpointId: decodeId(rowBytes(row, 'checkpoint_id') ?? new Uint8Array()),
    parentId: parent === undefined ? undefined : decodeId(parent),
    parentSeq: row.parent_seq === null || row.parent_seq === undefined ? undefined : Number(row.parent_seq),
    record: decodeCheckpointRecord(rowBytes(row, 'data') ?? new Uint8Array(), baseHeaderBytes),
  };
}

/**
 * The dictionary a checkpoint's pending writes are deflated against: its base record (text
 * of the same conversation) and its own values (the input the `__start__` task writes again).
 */
export function writesDictionary(
  row: Pick<CheckpointRow, 'baseHeaderBytes' | 'record'>,
): Uint8Array | undefined {
  const own = ownValuesBytes(row.record);
  if (row.baseHeaderBytes === undefined) return own;
  return own === undefined ? row.baseHeaderBytes : Buffer.concat([row.baseHeaderBytes, own]);
}
