import { ChainReader, chainRecordOf, MAX_CHAIN_DEPTH } from './chain-reader.ts';
import { dictionaryOf } from './chain-text.ts';
import { type CheckpointRecord, encodeCheckpointRecordWithRecord, taskIdsOf } from './checkpoint-record.ts';
import { ROW_COLUMNS, type StoredRow, storedRowOf } from './checkpoint-rows.ts';
import { encodeId } from './id-codec.ts';
import type { SaverContext } from './saver-context.ts';
import { SNAPSHOT_DIFF_TYPE } from './snapshot-diff.ts';
import { isSnapshotJson } from './snapshot-list.ts';
import type { SqlExecutor } from './sql-driver.ts';
import { encodeWritesRecord, regularWriteCount, type StoredWrite } from './writes-record.ts';

/** What a rewritten row holds: its (possibly changed) record content and its writes. */
export interface RowContent {
  row: StoredRow;
  record: Pick<CheckpointRecord, 'header' | 'metadata' | 'values'>;
  writes: StoredWrite[];
  /**
   * Store the header whole, not as a patch of the parent's: for a row whose header changed
   * (prune moved values into it or re-pointed them). As a patch it could encode to the very
   * bytes it had when its parent's header changed the same way — and another process's cache
   * of decoded rows, keyed by the stored bytes, would keep the old header.
   */
  wholeHeader?: boolean;
}

/**
 * Encodes a checkpoint row against its chain: chained to its parent when the parent is
 * stored, the chain is shorter than {@link MAX_CHAIN_DEPTH} and the row holds no delta-channel
 * snapshot; self-contained otherwise. A snapshot's row is read on its own by every cold load
 * after it (as the base of the list): self-contained, that read decodes one row instead of
 * its chain back to a self-contained one (decision 037). The parent must be known to
 * `reader`. Returns the new row (not yet written).
 */
export async function encodeRow(
  context: SaverContext,
  reader: ChainReader,
  content: RowContent,
): Promise<StoredRow> {
  const { row, record } = content;
  const parent = row.parentId === undefined ? undefined : reader.row(row.threadKey, row.parentId);
  const chained =
    parent?.data !== undefined &&
    parent.depth + 1 < MAX_CHAIN_DEPTH &&
    parent.checkpointId !== row.checkpointId &&
    !holdsSnapshot(record.values);
  const count = chained ? regularWriteCount(await reader.writes(parent)) : undefined;
  const prefix = chained && count !== undefined ? await reader.childText(parent, count) : undefined;
  const parentRecord =
    chained && content.wholeHeader !== true
      ? { id: parent.checkpointId, record: (await reader.record(parent)).record }
      : undefined;
  const { bytes, record: decoded } = await encodeCheckpointRecordWithRecord({
    checkpoint: record.header.checkpoint,
    metadata: [record.header.metadataType, record.metadata],
    values: record.values,
    located: record.header.located,
    compression: context.compression,
    ...(prefix === undefined || count === undefined
      ? {}
      : { dictionary: dictionaryOf(prefix), parentWrites: count }),
    ...(parentRecord === undefined ? {} : { parent: parentRecord }),
  });
  const encoded: StoredRow = {
    ...row,
    depth: chained && parent !== undefined ? parent.depth + 1 : 0,
    data: bytes,
    writes: undefined,
  };
  reader.add(encoded);
  const chainRecord = chainRecordOf(encoded, prefix, decoded);
  reader.remember(encoded, chainRecord);
  if (content.writes.length > 0) {
    encoded.writes = await encodeWritesRecord({
      writes: content.writes,
      compression: context.compression,
      dictionary: dictionaryOf(chainRecord.text),
      ...optionalIds(taskIdsOf(encoded.checkpointId, decoded)),
    });
    reader.add(encoded);
    reader.remember(encoded, chainRecord, content.writes);
  }
  return encoded;
}

/**
 * Re-encodes rows whose chain changed (parents first) and stores them. `contents` must be
 * closed under chained descendants: a row chained to a rewritten one is rewritten too.
 */
export async function rewriteRows(
  context: SaverContext,
  executor: SqlExecutor,
  reader: ChainReader,
  contents: readonly RowContent[],
): Promise<void> {
  const byId = new Map(contents.map((content) => [content.row.checkpointId, content]));
  const done = new Set<string>();
  const visit = async (content: RowContent): Promise<void> => {
    if (done.has(content.row.checkpointId)) return;
    done.add(content.row.checkpointId);
    const parent = content.row.parentId === undefined ? undefined : byId.get(content.row.parentId);
    if (parent !== undefined) await visit(parent);
    const row = await encodeRow(context, reader, content);
    await executor.run(
      `UPDATE ${context.tables.checkpoints} SET depth = ?, data = ?, writes = ? WHERE thread = ? AND checkpoint_id = ?`,
      [row.depth, row.data ?? null, row.writes ?? null, row.threadKey, encodeId(row.checkpointId)],
    );
  };
  for (const content of contents) await visit(content);
}

/**
 * A checkpoint put again with another record changes the chain of the rows chained to it:
 * re-encodes them (and theirs). Reads the thread's rows — a rare path (LangGraph puts a
 * checkpoint once).
 */
export async function rechainChildren(
  context: SaverContext,
  executor: SqlExecutor,
  reader: ChainReader,
  before: StoredRow,
  after: StoredRow,
): Promise<void> {
  if (before.data !== undefined && after.data !== undefined && Buffer.from(before.data).equals(after.data))
    return;
  const all = (
    await executor.all(
      `SELECT ${ROW_COLUMNS} FROM ${context.tables.checkpoints} c WHERE c.thread = ? AND c.data IS NOT NULL`,
      [before.threadKey],
    )
  ).map(storedRowOf);
  const old = new ChainReader(context, executor);
  old.add(...all.filter((row) => row.checkpointId !== before.checkpointId), before);
  const affected: StoredRow[] = [];
  let frontier = new Set([before.checkpointId]);
  while (frontier.size > 0) {
    const next = all.filter(
      (row) => row.depth > 0 && row.parentId !== undefined && frontier.has(row.parentId),
    );
    affected.push(...next);
    frontier = new Set(next.map((row) => row.checkpointId));
  }
  const contents: RowContent[] = [];
  for (const row of affected) {
    contents.push({ row, record: (await old.record(row)).record, writes: await old.writes(row) });
  }
  reader.add(...all.filter((row) => row.checkpointId !== after.checkpointId), after);
  await rewriteRows(context, executor, reader, contents);
}

/** `{ ids }` when defined (exact optional properties). */
export function optionalIds<T>(ids: T | undefined): { ids: T } | Record<string, never> {
  return ids === undefined ? {} : { ids };
}

/**
 * True when a record stores a delta channel's snapshot whole or as a difference. Not as a
 * reference: reading one replays the rows it refers to, whose chains a cold load decodes
 * anyway, so its row stays chained (self-contained it cost ~1 KB per snapshot).
 */
function holdsSnapshot(values: ReadonlyMap<string, [string, Uint8Array]>): boolean {
  for (const [type, bytes] of values.values()) {
    if (type === SNAPSHOT_DIFF_TYPE || (type === 'json' && isSnapshotJson(bytes))) return true;
  }
  return false;
}
