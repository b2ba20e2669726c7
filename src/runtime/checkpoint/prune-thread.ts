import { CtxloomError } from '../../core/errors.ts';
import { ChainReader } from './chain-reader.ts';
import { type RowContent, rewriteRows } from './chain-rewrite.ts';
import { ROW_COLUMNS, type StoredRow, storedRowOf } from './checkpoint-rows.ts';
import { encodeId } from './id-codec.ts';
import { sortWrites } from './pending-writes.ts';
import type { SaverContext } from './saver-context.ts';
import {
  decodeSnapshotDiff,
  decodeSnapshotRef,
  parseSnapshotRef,
  SNAPSHOT_DIFF_TYPE,
  SNAPSHOT_REF_TYPE,
  snapshotDiffBase,
  writeItems,
} from './snapshot-diff.ts';
import { type SnapshotItems, snapshotItems, snapshotJson } from './snapshot-list.ts';
import type { SqlExecutor } from './sql-driver.ts';

/**
 * Prunes one (thread, namespace) inside a transaction: keeps the newest `keepLast`
 * checkpoints plus the ancestors their delta channels replay from (back to each channel's
 * last snapshot, read from `metadata.counters_since_delta_snapshot`), moves values that
 * kept checkpoints still point at into the oldest kept checkpoint referring to them,
 * re-encodes kept rows whose chain lost or changed a record, and deletes the rest with
 * their pending writes.
 */
export async function pruneThread(options: {
  context: SaverContext;
  executor: SqlExecutor;
  threadKey: number;
  keepLast: number;
}): Promise<{ deletedCheckpoints: number; deletedWrites: number }> {
  const { context, executor, threadKey } = options;
  const rows = (
    await executor.all(
      `SELECT ${ROW_COLUMNS} FROM ${context.tables.checkpoints} c WHERE c.thread = ? AND c.data IS NOT NULL ORDER BY c.checkpoint_id DESC`,
      [threadKey],
    )
  ).map(storedRowOf);
  if (rows.length <= options.keepLast) return { deletedCheckpoints: 0, deletedWrites: 0 };
  // No shared cache: contents below are changed in place.
  const reader = new ChainReader(context, executor);
  reader.add(...rows);
  const contents = new Map<string, RowContent>();
  for (const row of rows) {
    const { record } = await reader.record(row);
    const copy = {
      header: { ...record.header, located: { ...record.header.located } },
      metadata: record.metadata,
      values: new Map(record.values),
    };
    contents.set(row.checkpointId, { row, record: copy, writes: await reader.writes(row) });
  }
  const kept = new Set<string>();
  for (const row of rows.slice(0, options.keepLast)) {
    kept.add(row.checkpointId);
    const record = contents.get(row.checkpointId)?.record;
    const metadata = (await context.serde.loadsTyped(
      record?.header.metadataType ?? 'json',
      record?.metadata ?? new Uint8Array(),
    )) as {
      counters_since_delta_snapshot?: Record<string, unknown>;
    };
    // A channel replays the writes of its updates since its last snapshot: only channels with
    // updates need ancestors. One without (counters [0, supersteps]: written never, or not
    // since its snapshot) needs no writes; its snapshot, if any, is a value pointer that the
    // move below keeps. (Counting it walked a never-written channel back to the first
    // checkpoint, so prune kept everything.)
    const needed = new Set(
      Object.entries(metadata.counters_since_delta_snapshot ?? {})
        .filter(([, counters]) => !Array.isArray(counters) || Number(counters[0]) > 0)
        .map(([channel]) => channel),
    );
    let ancestor = row.parentId === undefined ? undefined : contents.get(row.parentId);
    while (needed.size > 0 && ancestor !== undefined) {
      kept.add(ancestor.row.checkpointId);
      for (const channel of [...needed]) {
        if (ancestor.record.header.located[channel] !== undefined) needed.delete(channel);
      }
      ancestor = ancestor.row.parentId === undefined ? undefined : contents.get(ancestor.row.parentId);
    }
  }
  const keptRows = rows.filter((row) => kept.has(row.checkpointId));
  const deleted = rows.filter((row) => !kept.has(row.checkpointId));
  const deletedIds = new Set(deleted.map((row) => row.checkpointId));
  // Oldest first, so each moved value lands in the oldest kept record that points at it.
  const changed = new Set<string>();
  const movedTo = new Map<string, string>();
  for (const row of [...keptRows].reverse()) {
    const { record } = contents.get(row.checkpointId) as RowContent;
    for (const [channel, location] of Object.entries(record.header.located)) {
      if (!deletedIds.has(location)) continue;
      const key = `${location}\u0000${channel}`;
      const target = movedTo.get(key);
      if (target !== undefined) {
        record.header.located[channel] = target;
      } else {
        const value = contents.get(location)?.record.values.get(channel);
        if (value === undefined) continue;
        record.values.set(channel, value);
        record.header.located[channel] = '';
        movedTo.set(key, row.checkpointId);
      }
      changed.add(row.checkpointId);
    }
  }
  // A snapshot stored as a difference against a deleted row, or as a reference to writes of
  // a deleted row, is stored whole again.
  const missing = (id: string, channel: string, what: string) =>
    new CtxloomError({
      code: 'storage-error',
      message: `${what} of the snapshot of channel ${channel} at checkpoint ${id} is missing`,
      path: channel,
    });
  /** The rows from `fromId` back to `baseId` (`''`: the first checkpoint), oldest first (undefined: not an ancestor). */
  const pathRows = (fromId: string, baseId: string): RowContent[] | undefined => {
    const out: RowContent[] = [];
    for (let at = contents.get(fromId); at !== undefined; at = contents.get(at.row.parentId ?? '')) {
      out.push(at);
      if (at.row.checkpointId === baseId || (baseId === '' && at.row.parentId === undefined))
        return out.reverse();
    }
    return undefined;
  };
  const itemsAt = async (
    id: string,
    channel: string,
    value: [string, Uint8Array],
  ): Promise<SnapshotItems> => {
    const baseItems = async (baseId: string) => {
      const base = contents.get(baseId)?.record.values.get(channel);
      if (base === undefined) throw missing(id, channel, `base ${baseId}`);
      return itemsAt(baseId, channel, base);
    };
    if (value[0] === SNAPSHOT_DIFF_TYPE) return decodeSnapshotDiff(value[1], baseItems);
    if (value[0] === SNAPSHOT_REF_TYPE) {
      const ref = parseSnapshotRef(value[1]);
      const rows = pathRows(ref.from, ref.base);
      if (rows === undefined) throw missing(id, channel, `the writes from ${ref.base} to ${ref.from}`);
      const appended: string[] = [];
      for (const content of rows) {
        for (const write of sortWrites(content.writes)) {
          if (write.channel !== channel) continue;
          const own = writeItems(write.type, write.bytes, ref.key ?? undefined);
          if (own === undefined) throw missing(id, channel, `a list write of ${content.row.checkpointId}`);
          appended.push(...own);
        }
      }
      const base = ref.base === '' ? { key: ref.key ?? undefined, items: [] } : await baseItems(ref.base);
      return decodeSnapshotRef(ref, base, appended);
    }
    const items = snapshotItems(Buffer.from(value[1]).toString('utf8'));
    if (items === undefined) {
      throw new CtxloomError({
        code: 'storage-error',
        message: `value of channel ${channel} at checkpoint ${id} is not a list snapshot`,
        path: channel,
      });
    }
    return items;
  };
  const dependsOnDeleted = (value: [string, Uint8Array]): boolean => {
    if (value[0] === SNAPSHOT_DIFF_TYPE) return deletedIds.has(snapshotDiffBase(value[1]));
    if (value[0] !== SNAPSHOT_REF_TYPE) return false;
    const ref = parseSnapshotRef(value[1]);
    const rows = pathRows(ref.from, ref.base);
    return rows === undefined || rows.some((content) => deletedIds.has(content.row.checkpointId));
  };
  for (const row of keptRows) {
    const { record } = contents.get(row.checkpointId) as RowContent;
    for (const [channel, value] of [...record.values]) {
      if (!dependsOnDeleted(value)) continue;
      record.values.set(channel, ['json', snapshotJson(await itemsAt(row.checkpointId, channel, value))]);
      changed.add(row.checkpointId);
    }
  }
  // A row chained to a deleted or rewritten row is rewritten too (parents first).
  const rewrite = new Set(changed);
  const chainedTo = (row: StoredRow) => (row.depth > 0 ? row.parentId : undefined);
  let grew = true;
  while (grew) {
    grew = false;
    for (const row of keptRows) {
      const parent = chainedTo(row);
      if (rewrite.has(row.checkpointId) || parent === undefined) continue;
      if (deletedIds.has(parent) || rewrite.has(parent)) {
        rewrite.add(row.checkpointId);
        grew = true;
      }
    }
  }
  let deletedWrites = 0;
  for (const row of deleted) {
    deletedWrites += contents.get(row.checkpointId)?.writes.length ?? 0;
    await executor.run(`DELETE FROM ${context.tables.checkpoints} WHERE thread = ? AND checkpoint_id = ?`, [
      threadKey,
      encodeId(row.checkpointId),
    ]);
  }
  // Deleted rows are no chain parents any more: forget them before re-encoding.
  const survivors = new ChainReader(context, executor);
  survivors.add(...keptRows);
  for (const row of keptRows) {
    if (!rewrite.has(row.checkpointId)) await survivors.record(row);
  }
  await rewriteRows(
    context,
    executor,
    survivors,
    keptRows
      .filter((row) => rewrite.has(row.checkpointId))
      .map((row) => ({
        ...(contents.get(row.checkpointId) as RowContent),
        // Its header changed: new bytes, so no process keeps the old header cached (see RowContent).
        wholeHeader: changed.has(row.checkpointId),
      })),
  );
  return { deletedCheckpoints: deleted.length, deletedWrites };
}
