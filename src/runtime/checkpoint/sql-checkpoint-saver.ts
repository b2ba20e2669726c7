import { isDeepStrictEqual } from 'node:util';
import type { RunnableConfig } from '@langchain/core/runnables';
import {
  BaseCheckpointSaver,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointPendingWrite,
  type CheckpointTuple,
  type DeltaChannelHistory,
  getCheckpointId,
  maxChannelVersion,
  type PendingWrite,
  type SerializerProtocol,
  TASKS,
  WRITES_IDX_MAP,
} from '@langchain/langgraph-checkpoint';
import { CtxloomError } from '../../core/errors.ts';
import {
  decodeCheckpointRecord,
  decodeWritesRecord,
  encodeCheckpointRecord,
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
import { type CheckpointTables, ensureCheckpointSchema } from './checkpoint-schema.ts';
import { deltaChannelHistory } from './delta-history.ts';
import { encodeId } from './id-codec.ts';
import { internThread, loadHolders, loadValue, locateValues } from './locate-values.ts';
import { loadWrites, reencodeWrites } from './pending-writes.ts';
import { pruneThread } from './prune-thread.ts';
import type { RecordCompression } from './record-codec.ts';
import type { SaverContext } from './saver-context.ts';
import { rowBytes, rowText, type SqlDriver, type SqlExecutor, type SqlRow } from './sql-driver.ts';

/** Options shared by the SQL savers. */
export interface SqlCheckpointSaverOptions {
  driver: SqlDriver;
  tables: CheckpointTables;
  /** PostgreSQL schema to create the tables in. */
  schema?: string;
  /** Record compression. Default `deflate`. */
  compression?: RecordCompression;
  /** Serializer for values and metadata. Default LangGraph's JsonPlusSerializer. */
  serde?: SerializerProtocol;
}

/** Options of {@link SqlCheckpointSaver.prune}. */
export interface PruneOptions {
  /** Checkpoints to keep per thread and namespace, newest first. Integer ≥ 1. */
  keepLast: number;
  /** Prune only this thread. Default: every thread. */
  threadId?: string;
}

/** What {@link SqlCheckpointSaver.prune} removed. */
export interface PruneResult {
  deletedCheckpoints: number;
  deletedWrites: number;
}

/** Records between two self-contained ones: bounds how far a record's base can be. */
const MAX_BASE_DISTANCE = 64;

type NamedRow = CheckpointRow & { threadId: string; namespace: string };

const SELECT_CHECKPOINT = (tables: CheckpointTables) =>
  `SELECT ${CHECKPOINT_COLUMNS}, t.thread_id, t.checkpoint_ns FROM ${checkpointFrom(tables)} JOIN ${tables.threads} t ON t.id = c.thread`;

/**
 * A complete LangGraph `BaseCheckpointSaver` over SQL (SQLite or PostgreSQL through a
 * {@link SqlDriver}). Storage grows with what changed: a checkpoint stores only the values
 * of channels written at its step and points at the record holding every other value;
 * delta channels (LangGraph `DeltaValue`, ctxloom's `messages` and `mapreduce_results`)
 * store only their writes plus periodic snapshots; records are DEFLATE-compressed.
 * `getDeltaChannelHistory` walks the parent chain in one recursive query.
 */
export class SqlCheckpointSaver extends BaseCheckpointSaver {
  protected readonly driver: SqlDriver;
  protected readonly tables: CheckpointTables;
  readonly #compression: RecordCompression;
  readonly #schema: string | undefined;
  #ready: Promise<void> | undefined;
  readonly #context: SaverContext;

  constructor(options: SqlCheckpointSaverOptions) {
    super(options.serde);
    this.driver = options.driver;
    this.tables = options.tables;
    this.#compression = options.compression ?? 'deflate';
    this.#schema = options.schema;
    this.#context = { tables: this.tables, serde: this.serde, compression: this.#compression };
  }

  /** Creates the tables if needed. Called lazily by every method; call it to fail early. */
  setup(): Promise<void> {
    this.#ready ??= ensureCheckpointSchema({
      driver: this.driver,
      tables: this.tables,
      ...(this.#schema === undefined ? {} : { schema: this.#schema }),
    }).catch((error: unknown) => {
      this.#ready = undefined;
      throw new CtxloomError({
        code: 'storage-error',
        message: 'checkpoint schema setup failed',
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
    const checkpointId = getCheckpointId(config);
    const base = `${SELECT_CHECKPOINT(this.tables)} WHERE t.thread_id = ? AND t.checkpoint_ns = ?`;
    const rows = checkpointId
      ? await this.driver.all(`${base} AND c.checkpoint_id = ?`, [
          threadId,
          namespace,
          encodeId(checkpointId),
        ])
      : await this.driver.all(`${base} ORDER BY c.checkpoint_id DESC LIMIT 1`, [threadId, namespace]);
    const row = rows[0];
    return row === undefined ? undefined : this.#toTuple(parseNamedRow(row), this.driver);
  }

  override async *list(
    config: RunnableConfig,
    options?: CheckpointListOptions,
  ): AsyncGenerator<CheckpointTuple> {
    await this.setup();
    const where: string[] = [];
    const params: (string | Uint8Array)[] = [];
    const threadId = configString(config, 'thread_id');
    const namespace = configString(config, 'checkpoint_ns');
    const checkpointId = configString(config, 'checkpoint_id');
    const before = options?.before === undefined ? undefined : configString(options.before, 'checkpoint_id');
    if (threadId !== undefined) where.push('t.thread_id = ?') && params.push(threadId);
    if (namespace !== undefined) where.push('t.checkpoint_ns = ?') && params.push(namespace);
    if (checkpointId) where.push('c.checkpoint_id = ?') && params.push(encodeId(checkpointId));
    if (before) where.push('c.checkpoint_id < ?') && params.push(encodeId(before));
    const filter = options?.filter;
    let remaining = options?.limit ?? Number.POSITIVE_INFINITY;
    if (remaining <= 0) return;
    const limitSql =
      filter === undefined && Number.isFinite(remaining) ? ` LIMIT ${Math.floor(remaining)}` : '';
    const sql = `${SELECT_CHECKPOINT(this.tables)}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY t.thread_id, t.checkpoint_ns, c.checkpoint_id DESC${limitSql}`;
    const bases = new Map<number, Uint8Array>();
    for (const raw of await this.driver.all(sql, params)) {
      const row = parseNamedRow(raw, bases);
      if (filter !== undefined) {
        const metadata = (await this.serde.loadsTyped(
          row.record.header.metadataType,
          row.record.metadata,
        )) as Record<string, unknown>;
        const matches = Object.entries(filter).every(([key, value]) =>
          isDeepStrictEqual(metadata[key], value),
        );
        if (!matches) continue;
      }
      yield await this.#toTuple(row, this.driver);
      remaining -= 1;
      if (remaining <= 0) return;
    }
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
    await this.driver.transaction(async (executor) => {
      const threadKey = await internThread(executor, this.tables, threadId, namespace);
      // This checkpoint (when put again) and its parent, in one query.
      const ids = parentId ? [checkpoint.id, parentId] : [checkpoint.id];
      const known = await executor.all(
        `SELECT ${CHECKPOINT_COLUMNS} FROM ${checkpointFrom(this.tables)} WHERE c.thread = ? AND c.checkpoint_id IN (${ids.map(() => '?').join(', ')})`,
        [threadKey, ...ids.map(encodeId)],
      );
      const rows = known.map((raw) => decodeCheckpointRow(raw));
      const previous = rows.find((row) => row.checkpointId === checkpoint.id);
      const { located, parent } = await locateValues(this.#context, executor, {
        threadKey,
        parentId,
        parent: parentId ? (rows.find((row) => row.checkpointId === parentId) ?? null) : null,
        channelVersions: checkpoint.channel_versions,
        newVersions,
        stored: values,
      });
      // Deflate against the chain's base record so a step costs only what changed.
      const distance = (parent?.record.header.baseDistance ?? MAX_BASE_DISTANCE) + 1;
      const base =
        parent === undefined || distance >= MAX_BASE_DISTANCE || parent.checkpointId === checkpoint.id
          ? undefined
          : {
              seq: parent.baseSeq ?? parent.seq,
              headerBytes: parent.baseHeaderBytes ?? parent.record.headerBytes,
              distance,
            };
      const data = encodeCheckpointRecord({
        checkpoint: stored,
        metadata: metadataBytes,
        values,
        located,
        compression: this.#compression,
        ...(base === undefined ? {} : { base }),
      });
      await executor.run(
        `INSERT INTO ${this.tables.checkpoints} (thread, checkpoint_id, parent_seq, parent_checkpoint_id, base_seq, data) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (thread, checkpoint_id) DO UPDATE SET parent_seq = EXCLUDED.parent_seq, parent_checkpoint_id = EXCLUDED.parent_checkpoint_id, base_seq = EXCLUDED.base_seq, data = EXCLUDED.data`,
        [
          threadKey,
          encodeId(checkpoint.id),
          parent?.seq ?? null,
          parent === undefined && parentId ? encodeId(parentId) : null,
          base?.seq ?? null,
          data,
        ],
      );
      // Writes may arrive before their checkpoint (LangGraph puts asynchronously), or a
      // checkpoint may be put again: re-encode them against this checkpoint's dictionary.
      await reencodeWrites(this.#context, executor, {
        threadKey,
        checkpointId: checkpoint.id,
        previous,
        current: decodeCheckpointRecord(data, base?.headerBytes),
        baseHeaderBytes: base?.headerBytes,
      });
    });
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
    const incoming: StoredWrite[] = [];
    for (const [index, [channel, value]] of writes.entries()) {
      const [type, bytes] = await this.serde.dumpsTyped(value);
      incoming.push({ idx: WRITES_IDX_MAP[channel] ?? index, channel, type, bytes });
    }
    await this.driver.transaction(async (executor) => {
      const threadKey = await internThread(executor, this.tables, threadId, namespace);
      const existing = await executor.all(
        `SELECT data FROM ${this.tables.writes} WHERE thread = ? AND checkpoint_id = ? AND task_id = ?`,
        [threadKey, encodeId(checkpointId), encodeId(taskId)],
      );
      const checkpointRows = await executor.all(
        `SELECT ${CHECKPOINT_COLUMNS} FROM ${checkpointFrom(this.tables)} WHERE c.thread = ? AND c.checkpoint_id = ?`,
        [threadKey, encodeId(checkpointId)],
      );
      const base =
        checkpointRows[0] === undefined
          ? undefined
          : writesDictionary(decodeCheckpointRow(checkpointRows[0]));
      const existingBytes = existing[0] === undefined ? undefined : rowBytes(existing[0], 'data');
      const previous = existingBytes === undefined ? undefined : decodeWritesRecord(existingBytes, base);
      const byIdx = new Map((previous?.writes ?? []).map((write) => [write.idx, write]));
      for (const write of incoming) {
        // Regular writes are insert-once (a retried task must not double them); special
        // writes (errors, interrupts: negative idx) replace the previous one.
        if (write.idx >= 0 && byIdx.has(write.idx)) continue;
        byIdx.set(write.idx, write);
      }
      const data = encodeWritesRecord({
        taskPath: taskPath ?? previous?.taskPath ?? '',
        writes: [...byIdx.values()].sort((a, b) => a.idx - b.idx),
        compression: this.#compression,
        ...(base === undefined ? {} : { base }),
      });
      await executor.run(
        `INSERT INTO ${this.tables.writes} (thread, checkpoint_id, task_id, data) VALUES (?, ?, ?, ?) ON CONFLICT (thread, checkpoint_id, task_id) DO UPDATE SET data = EXCLUDED.data`,
        [threadKey, encodeId(checkpointId), encodeId(taskId), data],
      );
    });
  }

  override async deleteThread(threadId: string): Promise<void> {
    await this.setup();
    await this.driver.transaction(async (executor) => {
      const keys = await executor.all(`SELECT id FROM ${this.tables.threads} WHERE thread_id = ?`, [
        threadId,
      ]);
      for (const key of keys) {
        const id = Number(key.id);
        await executor.run(`DELETE FROM ${this.tables.writes} WHERE thread = ?`, [id]);
        await executor.run(`DELETE FROM ${this.tables.checkpoints} WHERE thread = ?`, [id]);
        await executor.run(`DELETE FROM ${this.tables.threads} WHERE id = ?`, [id]);
      }
    });
  }

  override async getDeltaChannelHistory(options: {
    config: RunnableConfig;
    channels: string[];
  }): Promise<Record<string, DeltaChannelHistory>> {
    if (options.channels.length === 0) return {};
    await this.setup();
    return deltaChannelHistory({ context: this.#context, driver: this.driver, ...options });
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
    const keys = await this.driver.all(
      options.threadId === undefined
        ? `SELECT id FROM ${this.tables.threads}`
        : `SELECT id FROM ${this.tables.threads} WHERE thread_id = ?`,
      options.threadId === undefined ? [] : [options.threadId],
    );
    const total: PruneResult = { deletedCheckpoints: 0, deletedWrites: 0 };
    for (const key of keys) {
      const result = await this.driver.transaction((executor) =>
        pruneThread({
          executor,
          tables: this.tables,
          threadKey: Number(key.id),
          keepLast: options.keepLast,
          compression: this.#compression,
          serde: this.serde,
        }),
      );
      total.deletedCheckpoints += result.deletedCheckpoints;
      total.deletedWrites += result.deletedWrites;
    }
    await this.reclaimSpace();
    return total;
  }

  /** Gives freed pages back after {@link prune}; the default does nothing. */
  protected async reclaimSpace(): Promise<void> {}

  /** Closes the underlying connection or pool (never a pool the caller passed in). */
  async close(): Promise<void> {
    await this.driver.close();
  }

  async #toTuple(row: NamedRow, executor: SqlExecutor): Promise<CheckpointTuple> {
    const { header } = row.record;
    const channelValues: Record<string, unknown> = {};
    const elsewhere = new Set(Object.values(header.located).filter((seq) => seq !== 0 && seq !== row.seq));
    const holders = await loadHolders(this.#context, executor, [...elsewhere]);
    for (const [channel, location] of Object.entries(header.located)) {
      channelValues[channel] = await loadValue(
        this.#context,
        executor,
        row.seq,
        row.record,
        channel,
        location,
        holders,
      );
    }
    const checkpoint: Checkpoint = {
      ...structuredClone(header.checkpoint),
      id: row.checkpointId,
      channel_values: channelValues,
    };
    const writesByCheckpoint = await loadWrites(
      this.#context,
      executor,
      row.threadKey,
      [row.checkpointId],
      new Map([[row.checkpointId, row]]),
    );
    const pendingWrites: CheckpointPendingWrite[] = [];
    for (const write of writesByCheckpoint.get(row.checkpointId) ?? []) {
      pendingWrites.push([write.taskId, write.channel, await this.serde.loadsTyped(write.type, write.bytes)]);
    }
    if (checkpoint.v < 4 && row.parentId !== undefined) {
      await this.#migratePendingSends(executor, checkpoint, row.threadKey, row.parentId);
    }
    const tuple: CheckpointTuple = {
      config: {
        configurable: {
          thread_id: row.threadId,
          checkpoint_ns: row.namespace,
          checkpoint_id: row.checkpointId,
        },
      },
      checkpoint,
      metadata: (await this.serde.loadsTyped(header.metadataType, row.record.metadata)) as CheckpointMetadata,
      pendingWrites,
    };
    if (row.parentId !== undefined) {
      tuple.parentConfig = {
        configurable: { thread_id: row.threadId, checkpoint_ns: row.namespace, checkpoint_id: row.parentId },
      };
    }
    return tuple;
  }

  async #migratePendingSends(
    executor: SqlExecutor,
    checkpoint: Checkpoint,
    threadKey: number,
    parentId: string,
  ): Promise<void> {
    const parentWrites =
      (await loadWrites(this.#context, executor, threadKey, [parentId], new Map())).get(parentId) ?? [];
    const sends = parentWrites
      .filter((write) => write.channel === TASKS)
      .sort((a, b) => (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : a.idx - b.idx));
    const values: unknown[] = [];
    for (const send of sends) values.push(await this.serde.loadsTyped(send.type, send.bytes));
    (checkpoint.channel_values as Record<string, unknown>)[TASKS] = values;
    const versions = Object.values(checkpoint.channel_versions);
    (checkpoint.channel_versions as Record<string, string | number>)[TASKS] =
      versions.length > 0 ? maxChannelVersion(...versions) : this.getNextVersion(undefined);
  }
}

function parseNamedRow(row: SqlRow, bases?: Map<number, Uint8Array>): NamedRow {
  return {
    ...decodeCheckpointRow(row, bases),
    threadId: rowText(row, 'thread_id') ?? '',
    namespace: rowText(row, 'checkpoint_ns') ?? '',
  };
}

function configString(config: RunnableConfig, key: string): string | undefined {
  const value: unknown = config.configurable?.[key];
  return value === undefined || value === null ? undefined : String(value);
}
