import type { SerializerProtocol } from '@langchain/langgraph-checkpoint';
import { decodeWritesRecord, encodeCheckpointRecord, encodeWritesRecord } from './checkpoint-record.ts';
import {
  CHECKPOINT_COLUMNS,
  type CheckpointRow,
  checkpointFrom,
  decodeCheckpointRow,
  writesDictionary,
} from './checkpoint-rows.ts';
import type { CheckpointTables } from './checkpoint-schema.ts';
import { encodeId } from './id-codec.ts';
import { needsBase, type RecordCompression } from './record-codec.ts';
import { rowBytes, type SqlExecutor } from './sql-driver.ts';

type PruneRow = CheckpointRow;

/**
 * Prunes one (thread, namespace) inside a transaction: keeps the newest `keepLast`
 * checkpoints plus the ancestors their delta channels replay from (back to each channel's
 * last snapshot, read from `metadata.counters_since_delta_snapshot`), moves values that
 * kept checkpoints still point at into the oldest kept checkpoint referring to them, and
 * deletes the rest with their pending writes.
 */
export async function pruneThread(options: {
  executor: SqlExecutor;
  tables: CheckpointTables;
  threadKey: number;
  keepLast: number;
  compression: RecordCompression;
  serde: SerializerProtocol;
}): Promise<{ deletedCheckpoints: number; deletedWrites: number }> {
  const { executor, tables, threadKey } = options;
  const rawRows = await executor.all(
    `SELECT ${CHECKPOINT_COLUMNS} FROM ${checkpointFrom(tables)} WHERE c.thread = ? ORDER BY c.checkpoint_id DESC`,
    [threadKey],
  );
  if (rawRows.length <= options.keepLast) return { deletedCheckpoints: 0, deletedWrites: 0 };
  const bases = new Map<number, Uint8Array>();
  const rows: PruneRow[] = rawRows.map((row) => decodeCheckpointRow(row, bases));
  // Pending writes are deflated against their checkpoint's dictionary; remember the old ones.
  const oldDictionaries = new Map(rows.map((row) => [row.seq, writesDictionary(row)]));
  const byId = new Map(rows.map((row) => [row.checkpointId, row]));
  const kept = new Set<string>();
  for (const row of rows.slice(0, options.keepLast)) {
    kept.add(row.checkpointId);
    const metadata = (await options.serde.loadsTyped(
      row.record.header.metadataType,
      row.record.metadata,
    )) as {
      counters_since_delta_snapshot?: Record<string, unknown>;
    };
    const needed = new Set(Object.keys(metadata.counters_since_delta_snapshot ?? {}));
    let ancestor = row.parentId === undefined ? undefined : byId.get(row.parentId);
    while (needed.size > 0 && ancestor !== undefined) {
      kept.add(ancestor.checkpointId);
      for (const channel of [...needed]) {
        if (ancestor.record.header.located[channel] !== undefined) needed.delete(channel);
      }
      ancestor = ancestor.parentId === undefined ? undefined : byId.get(ancestor.parentId);
    }
  }
  const keptRows = rows.filter((row) => kept.has(row.checkpointId));
  const deleted = rows.filter((row) => !kept.has(row.checkpointId));
  const deletedSeqs = new Map(deleted.map((row) => [row.seq, row]));
  // Oldest first, so each moved value lands in the oldest kept record that points at it.
  const changed = new Set<PruneRow>();
  const movedTo = new Map<string, number>();
  for (const row of [...keptRows].reverse()) {
    for (const [channel, location] of Object.entries(row.record.header.located)) {
      const holder = deletedSeqs.get(location);
      if (holder === undefined) continue;
      const key = `${location}\u0000${channel}`;
      const target = movedTo.get(key);
      if (target !== undefined) {
        row.record.header.located[channel] = target;
      } else {
        const value = holder.record.values.get(channel);
        if (value === undefined) continue;
        row.record.values.set(channel, value);
        row.record.header.moved = [...(row.record.header.moved ?? []), channel];
        row.record.header.located[channel] = 0;
        movedTo.set(key, row.seq);
      }
      changed.add(row);
    }
  }
  // A record deflated against a deleted or rewritten base is rewritten self-contained.
  const rewritten = new Set([...changed].map((row) => row.seq));
  for (const row of keptRows) {
    if (row.baseSeq !== undefined && (deletedSeqs.has(row.baseSeq) || rewritten.has(row.baseSeq)))
      changed.add(row);
  }
  for (const row of changed) {
    row.record.header.baseDistance = 0;
    const data = encodeCheckpointRecord({
      checkpoint: row.record.header.checkpoint,
      metadata: [row.record.header.metadataType, row.record.metadata],
      values: row.record.values,
      located: row.record.header.located,
      compression: options.compression,
      ...(row.record.header.moved === undefined ? {} : { moved: row.record.header.moved }),
    });
    await executor.run(`UPDATE ${tables.checkpoints} SET data = ?, base_seq = NULL WHERE seq = ?`, [
      data,
      row.seq,
    ]);
    const dictionary = writesDictionary({ baseHeaderBytes: undefined, record: row.record });
    const writes = await executor.all(
      `SELECT task_id, data FROM ${tables.writes} WHERE thread = ? AND checkpoint_id = ?`,
      [threadKey, encodeId(row.checkpointId)],
    );
    for (const write of writes) {
      const bytes = rowBytes(write, 'data') ?? new Uint8Array();
      const decoded = decodeWritesRecord(bytes, needsBase(bytes) ? oldDictionaries.get(row.seq) : undefined);
      const encoded = encodeWritesRecord({
        taskPath: decoded.taskPath,
        writes: decoded.writes,
        compression: options.compression,
        ...(dictionary === undefined ? {} : { base: dictionary }),
      });
      await executor.run(
        `UPDATE ${tables.writes} SET data = ? WHERE thread = ? AND checkpoint_id = ? AND task_id = ?`,
        [encoded, threadKey, encodeId(row.checkpointId), rowBytes(write, 'task_id') ?? new Uint8Array()],
      );
    }
  }
  // A kept checkpoint whose parent goes keeps the parent's id (its parentConfig), not a dead seq.
  for (const row of keptRows) {
    if (row.parentSeq === undefined || !deletedSeqs.has(row.parentSeq) || row.parentId === undefined)
      continue;
    await executor.run(
      `UPDATE ${tables.checkpoints} SET parent_seq = NULL, parent_checkpoint_id = ? WHERE seq = ?`,
      [encodeId(row.parentId), row.seq],
    );
  }
  let deletedWrites = 0;
  for (const row of deleted) {
    deletedWrites += await executor.run(
      `DELETE FROM ${tables.writes} WHERE thread = ? AND checkpoint_id = ?`,
      [threadKey, encodeId(row.checkpointId)],
    );
    await executor.run(`DELETE FROM ${tables.checkpoints} WHERE seq = ?`, [row.seq]);
  }
  return { deletedCheckpoints: deleted.length, deletedWrites };
}
