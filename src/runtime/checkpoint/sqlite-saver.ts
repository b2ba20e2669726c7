import type { SerializerProtocol } from '@langchain/langgraph-checkpoint';
import { assertSaverOptions } from './assert-saver-options.ts';
import { checkpointTables } from './checkpoint-schema.ts';
import type { RecordCompression } from './record-codec.ts';
import { SqlCheckpointSaver } from './sql-checkpoint-saver.ts';
import type { SnapshotStorage } from './sql-saver-options.ts';
import { createSqliteDriver, type SqliteDurability } from './sqlite-driver.ts';
import { type AcquireThreadOptions, rowLeases, type ThreadLease, type ThreadLeases } from './thread-lease.ts';

/** Options of {@link SqliteSaver}. */
export interface SqliteSaverOptions {
  /** Database file, or `:memory:` (tests). Created when missing; its folder must exist (`not-found` if not). */
  path: string;
  /**
   * `full` (default): WAL with `synchronous=FULL` — an acknowledged `put`/`putWrites` survives
   * process kill and power loss. `normal`: WAL with `synchronous=NORMAL` — survives process
   * kill (SIGKILL, crash); the last transactions may roll back after power loss. Any other
   * value (like `snapshots` and `compression` outside their words) is `invalid-argument`.
   */
  durability?: SqliteDurability;
  /** Table name prefix. Default `ctxloom_cp_`. */
  prefix?: string;
  /** Record compression. Default `deflate`. */
  compression?: RecordCompression;
  /** How delta-channel snapshots are stored: `difference` (default; ~2 × raw, fast cold load) or `reference` (each message stored once; a cold load replays the whole thread). */
  snapshots?: SnapshotStorage;
  /**
   * Bytes of decoded channel histories the saver keeps for the threads in use, all threads
   * together (weighed by the bytes they were decoded from; a thread's next turn decodes only
   * the rows added since). Default 256 MiB (`HISTORY_CACHE_BYTES`, decision 080); 0 keeps only
   * the thread read last.
   */
  historyCacheBytes?: number;
  /** Milliseconds to wait for a lock held by another process. Default 5000. */
  busyTimeoutMs?: number;
  serde?: SerializerProtocol;
}

/**
 * The embedded checkpoint saver: LangGraph's `BaseCheckpointSaver` on Node's built-in
 * `node:sqlite` (no native addon), WAL journal. Storage grows linearly with the
 * conversation (see {@link SqlCheckpointSaver}); `prune({ keepLast })` drops old
 * checkpoints and `vacuum()` shrinks the file.
 *
 * @example
 * ```ts
 * const saver = new SqliteSaver({ path: 'state.db' });
 * const graph = builder.compile({ checkpointer: saver });
 * await graph.invoke(input, { configurable: { thread_id: 'session-1' } });
 * ```
 */
export class SqliteSaver extends SqlCheckpointSaver implements ThreadLeases {
  readonly #driver: ReturnType<typeof createSqliteDriver>;
  readonly #leases: ThreadLeases;

  constructor(options: SqliteSaverOptions) {
    assertSaverOptions(options);
    const driver = createSqliteDriver({
      path: options.path,
      ...(options.durability === undefined ? {} : { durability: options.durability }),
      ...(options.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.busyTimeoutMs }),
    });
    super({
      driver,
      tables: checkpointTables({ prefix: options.prefix ?? 'ctxloom_cp_' }),
      ...(options.compression === undefined ? {} : { compression: options.compression }),
      ...(options.snapshots === undefined ? {} : { snapshots: options.snapshots }),
      ...(options.historyCacheBytes === undefined ? {} : { historyCacheBytes: options.historyCacheBytes }),
      ...(options.serde === undefined ? {} : { serde: options.serde }),
    });
    this.#driver = driver;
    this.#leases = rowLeases(driver, this.tables.leases);
  }

  /**
   * Takes the thread's writer lease (one writer per thread across processes sharing the
   * file): a row in `<prefix>leases` held while this process lives. `submitInput` takes it
   * around every turn. Throws `ThreadBusyError` (code `conflict`) after `waitMs`.
   */
  async acquireThread(options: AcquireThreadOptions): Promise<ThreadLease> {
    await this.setup();
    return this.#leases.acquireThread(options);
  }

  /** Bytes the database occupies (page count × page size, WAL checkpointed first). */
  async sizeBytes(): Promise<number> {
    await this.setup();
    const database = this.#driver.open();
    database.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    const pages = database.prepare('PRAGMA page_count').get() as { page_count: number };
    const size = database.prepare('PRAGMA page_size').get() as { page_size: number };
    const free = database.prepare('PRAGMA freelist_count').get() as { freelist_count: number };
    return (pages.page_count - free.freelist_count) * size.page_size;
  }

  /** Rewrites the file to its minimal size (SQLite `VACUUM`) and truncates the WAL. */
  async vacuum(): Promise<void> {
    await this.setup();
    await this.driver.run('VACUUM');
    this.#driver.open().exec('PRAGMA wal_checkpoint(TRUNCATE)');
  }

  protected override async reclaimSpace(): Promise<void> {
    await this.driver.run('PRAGMA incremental_vacuum');
  }
}
