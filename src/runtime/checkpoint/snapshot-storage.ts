import type { ChainReader } from './chain-reader.ts';
import { encodeId } from './id-codec.ts';
import { appendedItems, previousSnapshot } from './locate-values.ts';
import type { SaverContext } from './saver-context.ts';
import {
  encodeSnapshotDiff,
  encodeSnapshotRef,
  SNAPSHOT_DIFF_TYPE,
  SNAPSHOT_REF_TYPE,
} from './snapshot-diff.ts';
import { type SnapshotItems, storedSnapshotItems } from './snapshot-list.ts';
import type { SqlExecutor } from './sql-driver.ts';
import type { SnapshotStorage } from './sql-saver-options.ts';

/** Input of {@link storeSnapshotCompactly}. */
export interface StoreSnapshotInput {
  context: SaverContext;
  /** A reader of the put's transaction (on the saver's cache). */
  reader: ChainReader;
  executor: SqlExecutor;
  storage: SnapshotStorage;
  threadKey: number;
  checkpointId: string;
  parentId: string | undefined;
  channel: string;
  /** The put's serialised values: the channel's entry is replaced by its compact form. */
  values: Map<string, [string, Uint8Array]>;
  /** Collects the snapshot's items, remembered (`SnapshotMemo.setLatest`) once the put commits. */
  snapshots: Map<string, SnapshotItems>;
}

/**
 * Stores a delta channel's `DeltaSnapshot` without copying what is stored already (decision
 * 035): with `storage: 'reference'`, as a reference to the writes since the previous snapshot
 * on its path (when nothing but appends happened since); else as a difference against the
 * last snapshot this saver wrote for the thread and channel (when that row still exists);
 * else whole. Runs under the thread lock, in the put's transaction: a prune cannot delete the
 * base or the rows between before the commit.
 */
export async function storeSnapshotCompactly(input: StoreSnapshotInput): Promise<void> {
  const { context, reader, executor, threadKey, checkpointId, parentId, channel, values } = input;
  const stored = values.get(channel);
  if (stored === undefined || stored[0] !== 'json') return;
  const items = storedSnapshotItems(stored[1]);
  if (items === undefined) return;
  input.snapshots.set(channel, items);
  const latest = context.snapshots?.latest(threadKey, channel);
  if (input.storage === 'reference' && parentId && parentId !== checkpointId) {
    const base =
      latest !== undefined && latest.checkpointId !== checkpointId
        ? latest
        : await previousSnapshot(context, reader, threadKey, parentId, channel, items.key);
    if (base !== undefined) {
      const appended = await appendedItems(
        reader.fork({ cache: true }),
        threadKey,
        parentId,
        base.checkpointId,
        channel,
        items.key,
      );
      const ref =
        appended === undefined
          ? undefined
          : encodeSnapshotRef({
              baseId: base.checkpointId,
              fromId: parentId,
              base: base.snapshot,
              snapshot: items,
              appended,
            });
      if (ref !== undefined) {
        values.set(channel, [SNAPSHOT_REF_TYPE, ref]);
        return;
      }
    }
  }
  if (latest === undefined || latest.checkpointId === checkpointId) return;
  const base = await executor.all(
    `SELECT 1 AS found FROM ${context.tables.checkpoints} WHERE thread = ? AND checkpoint_id = ? AND data IS NOT NULL`,
    [threadKey, encodeId(latest.checkpointId)],
  );
  if (base.length === 0) return;
  const diff = encodeSnapshotDiff({ baseId: latest.checkpointId, base: latest.snapshot, snapshot: items });
  if (diff !== undefined) values.set(channel, [SNAPSHOT_DIFF_TYPE, diff]);
}
