import { type CheckpointRecord, decodeCheckpointRecord } from './checkpoint-record.ts';
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
  record: CheckpointRecord;
}

/**
 * Columns to select for {@link decodeCheckpointRow}, from `checkpoints c` joined with its
 * base `b`: `FROM ${checkpointFrom(tables)}`.
 */
export const CHECKPOINT_COLUMNS =
  'c.seq, c.thread, c.checkpoint_id, c.parent_checkpoint_id, c.base_seq, c.data, b.data AS base_data';

/** `checkpoints c LEFT JOIN checkpoints b ON b.seq = c.base_seq`. */
export function checkpointFrom(tables: CheckpointTables): string {
  return `${tables.checkpoints} c LEFT JOIN ${tables.checkpoints} b ON b.seq = c.base_seq`;
}

/** Decodes a row selected with {@link CHECKPOINT_COLUMNS}. */
export function decodeCheckpointRow(row: SqlRow): CheckpointRow {
  const baseBytes = rowBytes(row, 'base_data');
  const baseHeaderBytes = baseBytes === undefined ? undefined : decodeCheckpointRecord(baseBytes).headerBytes;
  const parent = rowBytes(row, 'parent_checkpoint_id');
  return {
    seq: Number(row.seq),
    baseSeq: row.base_seq === null || row.base_seq === undefined ? undefined : Number(row.base_seq),
    baseHeaderBytes,
    threadKey: Number(row.thread),
    checkpointId: decodeId(rowBytes(row, 'checkpoint_id') ?? new Uint8Array()),
    parentId: parent === undefined ? undefined : decodeId(parent),
    record: decodeCheckpointRecord(rowBytes(row, 'data') ?? new Uint8Array(), baseHeaderBytes),
  };
}
