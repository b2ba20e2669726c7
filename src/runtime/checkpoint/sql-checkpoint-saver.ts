import { isDeepStrictEqual } from 'node:util';
import type { RunnableConfig } from '@langchain/core/runnables';
import {
  BaseCheckpointSaver,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointTuple,
  type DeltaChannelHistory,
  getCheckpointId,
  isDeltaSnapshot,
  type PendingWrite,
  WRITES_IDX_MAP,
} from '@langchain/langgraph-checkpoint';
import { CtxloomError } from '../../core/errors.ts';
import { ChainCache } from './chain-cache.ts';
import { ChainReader, isMissingFromStorage } from './chain-reader.ts';
import { encodeRow, optionalIds, rechainChildren } from './chain-rewrite.ts';
import { dictionaryOf } from './chain-text.ts';
import { taskIdsOf } from './checkpoint-record.ts';
import { ROW_COLUMNS, type StoredRow, storedRowOf } from './checkpoint-rows.ts';
import { type CheckpointTables, ensureCheckpointSchema } from './checkpoint-schema.ts';
import { CheckpointSerializer } from './checkpoint-serializer.ts';
import { checkpointTuple, type NamedRow, parseNamedRow, SELECT_NAMED } from './checkpoint-tuple.ts';
import { deltaChannelHistory, type HistoryCache, historyCacheOf } from './delta-history.ts';
import { encodeId } from './id-codec.ts';
import { locateValues } from './locate-values.ts';
import { lockOrCreateRow, lockRow } from './pending-writes.ts';
import { pruneThread } from './prune-thread.ts';
import type { RecordCompression } from './record-codec.ts';
import type { SaverContext } from './saver-context.ts';
import { driverCause, setupFailure } from './setup-failure.ts';
import { SnapshotMemo } from './snapshot-diff.ts';
import type { SnapshotItems } from './snapshot-list.ts';
import { storeSnapshotCompactly } from './snapshot-storage.ts';
import type { SqlDriver, SqlExecutor, SqlParam } from './sql-driver.ts';
import type {
  PruneOptions,
  PruneResult,
  SnapshotStorage,
  SqlCheckpointSaverOptions,
} from './sql-saver-options.ts';
import {
  findThreadKey,
  lockThreadKey,
  NAME_ROW_ID,
  nameRowsQuery,
  threadKeyFor,
  threadName,
} from './thread-keys.ts';
import { encodeWritesRecord, mergeWrites, type StoredWrite } from './writes-record.ts';

export type { PruneOptions, PruneResult, SqlCheckpointSaverOptions } from './sql-saver-options.ts';

/**
 * A complete LangGraph `BaseCheckpointSaver` over SQL (SQLite or PostgreSQL through a
 * {@link SqlDriver}). Storage grows with what changed: a checkpoint stores only the values
 * of channels written at its step and points at the checkpoint holding every other value;
 * delta channels (LangGraph `DeltaValue`, ctxloom's `messages` and `mapreduce_results`)
 * store only their writes plus periodic snapshots. One row per checkpoint holds its record
 * and all its pending writes, both DEFLATE-compressed against the history of its path
 * (see `chain-text.ts`; a path's records inflate in one call, `ChainReader.prefetch`).
 * `getDeltaChannelHistory` walks the parent chain in one recursive query.
 */
export class SqlCheckpointSaver extends BaseCheckpointSaver {
  protected readonly driver: SqlDriver;
  protected readonly tables: CheckpointTables;
  readonly #compression: RecordCompression;
  readonly #snapshotStorage: SnapshotStorage;
  readonly #schema: string | undefined;
  #ready: Promise<void> | undefined;
  readonly #context: SaverContext;
  readonly #cache = new ChainCache();
  readonly #histories: HistoryCache;
  readonly #snapshots = new SnapshotMemo();

  constructor(options: SqlCheckpointSaverOptions) {
    super(options.serde ?? new CheckpointSerializer());
    this.driver = options.driver;
    this.tables = options.tables;
    this.#compression = options.compression ?? 'deflate';
    this.#snapshotStorage = options.snapshots ?? 'difference';
    this.#schema = options.schema;
    this.#histories = historyCacheOf(options.historyCacheBytes);
    this.#context = {
      tables: this.tables,
      serde: this.serde,
      compression: this.#compression,
      snapshots: this.#snapshots,
    };
  }

  /** Creates the tables if needed. Called lazily by every method; call it to fail early. */
  setup(): Promise<void> {
    this.#ready ??= ensureCheckpointSchema({
      driver: this.driver,
      tables: this.tables,
      ...(this.#schema === undefined ? {} : { schema: this.#schema }),
    }).catch((caught: unknown) => {
      this.#ready = undefined;
      // A driver's typed form of the database's error is worded here from the original.
      const error = driverCause(caught);
      if (CtxloomError.is(error)) throw error;
      throw new CtxloomError({
        code: 'storage-error',
        message: `checkpoint schema setup failed: ${setupFailure(error)}`,
        cause: error,
      });
    });
    return this.#ready;
  }

  override async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    await this.setup();
    const threadId = configString(config, 'thread_id');
    if (threadId === undefined) return undefined;
    const namespace = configString(config, 'checkpoint_ns') ?? '';
    const name = threadName(threadId, namespace);
    const checkpointId = getCheckpointId(config);
    // The name row proves the key is this (thread, namespace)'s: its home key almost always
    // is, so one query answers; an empty answer looks the key up before giving up.
    return this.driver.read(async (executor) => {
      const select = (key: number) =>
        executor.all(
          `${SELECT_NAMED(this.tables)} AND t.writes = ? WHERE c.thread = ? AND c.data IS NOT NULL${checkpointId ? ' AND c.checkpoint_id = ?' : ''} ORDER BY c.checkpoint_id DESC LIMIT 1`,
          [NAME_ROW_ID, name.bytes, key, ...(checkpointId ? [encodeId(checkpointId)] : [])],
        );
      let rows = await select(name.keys[0] ?? 0);
      if (rows.length === 0) {
        const key = await findThreadKey(executor, this.tables, name);
        if (key !== undefined && key !== name.keys[0]) rows = await select(key);
      }
      const row = rows[0];
      if (row === undefined) return undefined;
      const named = parseNamedRow(row);
      return this.#orFresh(executor, (reader) => this.#toTuple(named, reader));
    });
  }

  override async *list(
    config: RunnableConfig,
    options?: CheckpointListOptions,
  ): AsyncGenerator<CheckpointTuple> {
    await this.setup();
    const where: string[] = ['c.data IS NOT NULL'];
    const params: SqlParam[] = [NAME_ROW_ID];
    const threadId = configString(config, 'thread_id');
    const namespace = configString(config, 'checkpoint_ns');
    const checkpointId = configString(config, 'checkpoint_id');
    const before = options?.before === undefined ? undefined : configString(options.before, 'checkpoint_id');
    if (threadId !== undefined || namespace !== undefined) {
      const names = nameRowsQuery(this.tables, { threadId, namespace });
      where.push(`c.thread IN (${names.sql})`);
      params.push(...names.params);
    }
    if (checkpointId) where.push('c.checkpoint_id = ?') && params.push(encodeId(checkpointId));
    if (before) where.push('c.checkpoint_id < ?') && params.push(encodeId(before));
    const filter = options?.filter;
    const remaining = options?.limit ?? Number.POSITIVE_INFINITY;
    if (remaining <= 0) return;
    const limitSql =
      filter === undefined && Number.isFinite(remaining) ? ` LIMIT ${Math.floor(remaining)}` : '';
    const sql = `${SELECT_NAMED(this.tables)} WHERE ${where.join(' AND ')} ORDER BY t.writes, c.checkpoint_id DESC${limitSql}`;
    // Read and decode on one snapshot, then yield: the consumer may call the saver in between.
    const tuples = await this.driver.read(async (executor) => {
      const rows = (await executor.all(sql, params)).map((raw) => parseNamedRow(raw));
      const reader = this.#reader(executor);
      reader.add(...rows);
      const found: CheckpointTuple[] = [];
      for (const row of rows) {
        if (filter !== undefined) {
          const { record } = await reader.record(row);
          const metadata = (await this.serde.loadsTyped(
            record.header.metadataType,
            record.metadata,
          )) as Record<string, unknown>;
          const matches = Object.entries(filter).every(([key, value]) =>
            isDeepStrictEqual(metadata[key], value),
          );
          if (!matches) continue;
        }
        found.push(await this.#orFresh(executor, (fresh) => this.#toTuple(row, fresh), reader));
        if (found.length >= remaining) break;
      }
      return found;
    });
    yield* tuples;
  }

  override async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
  ): Promise<RunnableConfig> {
    await this.setup();
    const threadId = configString(config, 'thread_id');
    if (threadId === undefined) {
      throw new CtxloomError({
        code: 'invalid-argument',
        message: 'put needs configurable.thread_id',
        path: 'configurable.thread_id',
      });
    }
    const namespace = configString(config, 'checkpoint_ns') ?? '';
    const parentId = configString(config, 'checkpoint_id');
    const { channel_values: channelValues, id: _id, ...stored } = checkpoint;
    const values = new Map<string, [string, Uint8Array]>();
    for (const channel of Object.keys(newVersions)) {
      if (!Object.hasOwn(channelValues, channel)) continue;
      const value = (channelValues as Record<string, unknown>)[channel];
      if (value === undefined) continue;
      values.set(channel, await this.serde.dumpsTyped(value));
    }
    const metadataBytes = await this.serde.dumpsTyped(metadata);
    const name = threadName(threadId, namespace);
    const postgres = this.driver.dialect === 'postgres';
    const snapshotChannels = [...values.keys()].filter((channel) =>
      isDeltaSnapshot((channelValues as Record<string, unknown>)[channel]),
    );
    const snapshots = new Map<string, SnapshotItems>();
    let putKey = 0;
    await this.driver.transaction(async (executor) => {
      const threadKey = await threadKeyFor(executor, this.tables, postgres, name);
      putKey = threadKey;
      await lockThreadKey(executor, postgres, threadKey);
      this.#histories.invalidate(threadKey, checkpoint.id, true);
      for (const channel of snapshotChannels) {
        await storeSnapshotCompactly({
          context: this.#context,
          reader: this.#reader(executor),
          executor,
          storage: this.#snapshotStorage,
          threadKey,
          checkpointId: checkpoint.id,
          parentId,
          channel,
          values,
          snapshots,
        });
      }
      const reader = this.#reader(executor);
      // This checkpoint (when put again, or its writes came first) and its parent, in one query.
      const ids = parentId && parentId !== checkpoint.id ? [checkpoint.id, parentId] : [checkpoint.id];
      const known = await executor.all(
        `SELECT ${ROW_COLUMNS} FROM ${this.tables.checkpoints} c WHERE c.thread = ? AND c.checkpoint_id IN (${ids.map(() => '?').join(', ')})`,
        [threadKey, ...ids.map(encodeId)],
      );
      const rows = known.map(storedRowOf);
      reader.add(...rows);
      const parentRow = rows.find((row) => row.checkpointId === parentId && row.data !== undefined);
      const parent =
        parentRow === undefined
          ? undefined
          : { row: parentRow, record: (await reader.record(parentRow)).record };
      // A cached parent record is current: prune stores whole every header it changes, so a
      // row's bytes change with its meaning (decision 035, point 7).
      const located = await locateValues(this.#context, executor, reader, {
        threadKey,
        parent,
        channelVersions: checkpoint.channel_versions,
        newVersions,
        stored: values,
      });
      // Put again: a value found in this checkpoint's previous record must move into the new one.
      for (const [channel, location] of Object.entries(located)) {
        if (location !== checkpoint.id) continue;
        const value = (channelValues as Record<string, unknown>)[channel];
        if (value === undefined) {
          delete located[channel];
          continue;
        }
        values.set(channel, await this.serde.dumpsTyped(value));
        located[channel] = '';
      }
      const content = {
        header: { checkpoint: stored, metadataType: metadataBytes[0], values: [], located },
        metadata: metadataBytes[1],
        values,
      };
      const fresh: StoredRow = {
        threadKey,
        checkpointId: checkpoint.id,
        parentId: parentId || undefined,
        depth: 0,
        data: undefined,
        writes: undefined,
      };
      let previous = rows.find((row) => row.checkpointId === checkpoint.id);
      if (previous === undefined) {
        const row = await encodeRow(this.#context, reader, { row: fresh, record: content, writes: [] });
        const inserted = await executor.run(
          `INSERT INTO ${this.tables.checkpoints} (thread, depth, checkpoint_id, parent_id, data) VALUES (?, ?, ?, ?, ?) ON CONFLICT (thread, checkpoint_id) DO NOTHING`,
          [
            threadKey,
            row.depth,
            encodeId(checkpoint.id),
            parentId ? encodeId(parentId) : null,
            row.data ?? null,
          ],
        );
        if (inserted > 0) return;
      }
      // Put again, or its writes were saved first (perhaps just now by another process):
      // lock the row and re-encode its writes against the new record.
      previous = await lockRow(executor, this.tables, postgres, threadKey, checkpoint.id);
      if (previous !== undefined) reader.add(previous);
      const writes = previous === undefined ? [] : await reader.writes(previous);
      const row = await encodeRow(this.#context, reader, { row: fresh, record: content, writes });
      await executor.run(
        `UPDATE ${this.tables.checkpoints} SET depth = ?, parent_id = ?, data = ?, writes = ? WHERE thread = ? AND checkpoint_id = ?`,
        [
          row.depth,
          parentId ? encodeId(parentId) : null,
          row.data ?? null,
          row.writes ?? null,
          threadKey,
          encodeId(checkpoint.id),
        ],
      );
      if (previous?.data !== undefined) await rechainChildren(this.#context, executor, reader, previous, row);
    });
    this.#snapshots.forgetValues(putKey, checkpoint.id);
    for (const [channel, items] of snapshots)
      this.#snapshots.setLatest(putKey, channel, checkpoint.id, items);
    return { configurable: { thread_id: threadId, checkpoint_ns: namespace, checkpoint_id: checkpoint.id } };
  }

  override async putWrites(
    config: RunnableConfig,
    writes: PendingWrite[],
    taskId: string,
    taskPath?: string,
  ): Promise<void> {
    await this.setup();
    const threadId = configString(config, 'thread_id');
    const checkpointId = configString(config, 'checkpoint_id');
    if (threadId === undefined || !checkpointId) {
      throw new CtxloomError({
        code: 'invalid-argument',
        message: 'putWrites needs configurable.thread_id and configurable.checkpoint_id',
        path: threadId === undefined ? 'configurable.thread_id' : 'configurable.checkpoint_id',
      });
    }
    const namespace = configString(config, 'checkpoint_ns') ?? '';
    const serialised: [number, string, [string, Uint8Array]][] = [];
    for (const [index, [channel, value]] of writes.entries()) {
      serialised.push([WRITES_IDX_MAP[channel] ?? index, channel, await this.serde.dumpsTyped(value)]);
    }
    const name = threadName(threadId, namespace);
    const postgres = this.driver.dialect === 'postgres';
    await this.driver.transaction(async (executor) => {
      const threadKey = await threadKeyFor(executor, this.tables, postgres, name);
      await lockThreadKey(executor, postgres, threadKey);
      this.#histories.invalidate(threadKey, checkpointId);
      const row = await lockOrCreateRow(executor, this.tables, postgres, threadKey, checkpointId);
      const reader = this.#reader(executor);
      reader.add(row);
      const log = await reader.writes(row);
      const path = taskPath ?? log.find((write) => write.taskId === taskId)?.taskPath ?? '';
      const incoming: StoredWrite[] = serialised.map(([idx, channel, [type, bytes]]) => ({
        taskId,
        taskPath: path,
        idx,
        channel,
        type,
        bytes,
      }));
      const merged = mergeWrites(log, incoming);
      if (merged.length === log.length && merged.every((write, index) => write === log[index])) return;
      const own = row.data === undefined ? undefined : await reader.record(row);
      const data = await encodeWritesRecord({
        writes: merged,
        compression: this.#compression,
        ...(own === undefined
          ? {}
          : { dictionary: dictionaryOf(own.text), ...optionalIds(taskIdsOf(checkpointId, own.record)) }),
      });
      // The next put (a child) reads these writes: keep them decoded.
      reader.rememberWrites({ ...row, writes: data }, merged);
      await executor.run(
        `UPDATE ${this.tables.checkpoints} SET writes = ? WHERE thread = ? AND checkpoint_id = ?`,
        [data, threadKey, encodeId(checkpointId)],
      );
    });
  }

  override async deleteThread(threadId: string): Promise<void> {
    await this.setup();
    const keys = nameRowsQuery(this.tables, { threadId });
    this.#histories.clear();
    this.#snapshots.forget();
    // One statement: every namespace's rows, name rows included, or none.
    await this.driver.run(
      `DELETE FROM ${this.tables.checkpoints} WHERE thread IN (${keys.sql})`,
      keys.params,
    );
  }

  override async getDeltaChannelHistory(options: {
    config: RunnableConfig;
    channels: string[];
  }): Promise<Record<string, DeltaChannelHistory>> {
    if (options.channels.length === 0) return {};
    await this.setup();
    return this.driver.read((executor) =>
      deltaChannelHistory({
        context: this.#context,
        executor,
        ...options,
        cache: this.#histories,
        chains: this.#cache,
      }),
    );
  }

  /**
   * Deletes all but the newest `keepLast` checkpoints of each thread and namespace (and
   * their pending writes), keeping every ancestor a kept checkpoint needs to rebuild its
   * delta channels, and moving values still referenced by kept checkpoints into them.
   * Freed space is reusable at once; call {@link vacuum} to shrink files.
   */
  async prune(options: PruneOptions): Promise<PruneResult> {
    if (!Number.isInteger(options.keepLast) || options.keepLast < 1) {
      throw new CtxloomError({
        code: 'invalid-argument',
        message: 'keepLast must be an integer ≥ 1',
        path: 'keepLast',
      });
    }
    await this.setup();
    const query = nameRowsQuery(this.tables, { threadId: options.threadId });
    const keys = await this.driver.all(query.sql, query.params);
    const total: PruneResult = { deletedCheckpoints: 0, deletedWrites: 0 };
    for (const key of keys) {
      const threadKey = Number(key.thread);
      const result = await this.driver.transaction(async (executor) => {
        await lockThreadKey(executor, this.driver.dialect === 'postgres', threadKey);
        this.#histories.invalidate(threadKey);
        this.#snapshots.forget(threadKey);
        return pruneThread({ context: this.#context, executor, threadKey, keepLast: options.keepLast });
      });
      total.deletedCheckpoints += result.deletedCheckpoints;
      total.deletedWrites += result.deletedWrites;
    }
    await this.reclaimSpace();
    return total;
  }

  /** Gives freed pages back after {@link prune}; the default does nothing. */
  protected async reclaimSpace(): Promise<void> {}

  /** Closes the underlying connection or pool (never a pool the caller passed in); any later use is a `storage-error`. */
  async close(): Promise<void> {
    await this.driver.close();
  }

  #reader(executor: SqlExecutor): ChainReader {
    return new ChainReader(this.#context, executor, this.#cache);
  }

  /**
   * Runs `work` with a reader on this process's decoded-record cache; when a value turns out
   * missing — a record decoded earlier points at a row another process's prune deleted (a
   * chained record's bytes can stay the same while its parent's content moved) — forgets the
   * cache and runs it again on the rows as stored now.
   */
  async #orFresh<T>(
    executor: SqlExecutor,
    work: (reader: ChainReader) => Promise<T>,
    reader: ChainReader = this.#reader(executor),
  ): Promise<T> {
    try {
      return await work(reader);
    } catch (error) {
      if (!isMissingFromStorage(error)) throw error;
      this.#cache.clear();
      return work(new ChainReader(this.#context, executor));
    }
  }

  async #toTuple(row: NamedRow, reader: ChainReader): Promise<CheckpointTuple> {
    return checkpointTuple({
      context: this.#context,
      reader,
      row,
      nextVersion: () => this.getNextVersion(undefined),
    });
  }
}

function configString(config: RunnableConfig, key: string): string | undefined {
  const value: unknown = config.configurable?.[key];
  return value === undefined || value === null ? undefined : String(value);
}
