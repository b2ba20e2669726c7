import type { SerializerProtocol } from '@langchain/langgraph-checkpoint';
import type pg from 'pg';
import { assertSaverOptions } from './assert-saver-options.ts';
import { checkpointTables } from './checkpoint-schema.ts';
import { createPostgresDriver } from './postgres-driver.ts';
import type { RecordCompression } from './record-codec.ts';
import { SqlCheckpointSaver } from './sql-checkpoint-saver.ts';
import type { SnapshotStorage } from './sql-saver-options.ts';
import {
  type AcquireThreadOptions,
  postgresLeases,
  rowLeases,
  type ThreadLease,
  type ThreadLeases,
} from './thread-lease.ts';

/** Options of {@link PostgresSaver}. Give a `pool` or a `connectionString`. */
export interface PostgresSaverOptions {
  pool?: pg.Pool;
  /** e.g. `postgres://postgres@127.0.0.1:5432/test`. */
  connectionString?: string;
  /**
   * Size of the pool the saver opens for `connectionString`: a whole number from 1 to 10 000;
   * default 10. Refused beside `pool` (that pool keeps its own `max`).
   */
  maxConnections?: number;
  /**
   * How long a call waits for a connection of the pool the saver opens for `connectionString`,
   * in ms (all `maxConnections` in use, or one opening). A whole number from 1 to 2 147 483 647; default
   * 10 000, then `storage-error` with `details.reason` `pool-exhausted`. Refused beside `pool`.
   */
  connectionTimeoutMs?: number;
  /** Schema holding the tables; created when missing. Default `public`. */
  schema?: string;
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
  serde?: SerializerProtocol;
}

/**
 * LangGraph's `BaseCheckpointSaver` on PostgreSQL through `pg` — the path for many server
 * processes sharing one database. Same layout and linear storage as the SQLite saver;
 * every write is one transaction, so concurrent processes never see half a checkpoint.
 */
export class PostgresSaver extends SqlCheckpointSaver implements ThreadLeases {
  readonly #schema: string;
  readonly #leases: ThreadLeases;
  readonly #rowLeases: ThreadLeases;

  /**
   * A saver on its own pool for `connectionString` (as the official saver's `fromConnString`).
   *
   * @example
   * ```ts
   * const saver = PostgresSaver.fromConnString('postgres://postgres@127.0.0.1:5432/app', { schema: 'agents' });
   * ```
   */
  static fromConnString(
    connectionString: string,
    options: Omit<PostgresSaverOptions, 'pool' | 'connectionString'> = {},
  ): PostgresSaver {
    return new PostgresSaver({ ...options, connectionString });
  }

  constructor(options: PostgresSaverOptions) {
    assertSaverOptions(options);
    const schema = options.schema ?? 'public';
    const driver = createPostgresDriver({
      ...(options.pool === undefined ? {} : { pool: options.pool }),
      ...(options.connectionString === undefined ? {} : { connectionString: options.connectionString }),
      ...(options.maxConnections === undefined ? {} : { maxConnections: options.maxConnections }),
      ...(options.connectionTimeoutMs === undefined
        ? {}
        : { connectionTimeoutMs: options.connectionTimeoutMs }),
    });
    super({
      driver,
      tables: checkpointTables({ schema, prefix: options.prefix ?? 'ctxloom_cp_' }),
      schema,
      ...(options.compression === undefined ? {} : { compression: options.compression }),
      ...(options.snapshots === undefined ? {} : { snapshots: options.snapshots }),
      ...(options.historyCacheBytes === undefined ? {} : { historyCacheBytes: options.historyCacheBytes }),
      ...(options.serde === undefined ? {} : { serde: options.serde }),
    });
    this.#schema = schema;
    this.#leases = postgresLeases(driver.pool, this.tables.checkpoints);
    this.#rowLeases = rowLeases(driver, this.tables.leases);
  }

  /**
   * Takes the thread's writer lease (one writer per thread across every process on the
   * database): a session advisory lock held on one pooled connection until `release()`, or
   * until that connection ends (a crashed process frees it). `submitInput` takes it around
   * every turn. Throws `ThreadBusyError` (code `conflict`) after `waitMs`.
   */
  async acquireThread(options: AcquireThreadOptions): Promise<ThreadLease> {
    await this.setup();
    return this.#leases.acquireThread(options);
  }

  /**
   * Takes a lease that holds no connection while it is held: a row of `<prefix>leases` (as the
   * SQLite saver's leases), kept while this process lives on its host and renewed until
   * `release()`; another host takes over a crashed holder's lease after 30 s. For holds as long
   * as a session turn streaming a model's answer, which must not keep one of the pool's
   * connections each. Its keys are apart from {@link acquireThread}'s. Throws `ThreadBusyError`
   * (code `conflict`) after `waitMs`.
   */
  async acquireRowLease(options: AcquireThreadOptions): Promise<ThreadLease> {
    await this.setup();
    return this.#rowLeases.acquireThread(options);
  }

  /**
   * Bytes of everything the saver stores: its one table with every fork (main, free-space
   * and visibility maps), its primary key and its TOAST table and index
   * (`pg_total_relation_size`).
   */
  async sizeBytes(): Promise<number> {
    await this.setup();
    const rows = await this.driver.all(`SELECT pg_total_relation_size(?::regclass) AS size`, [
      this.tables.checkpoints,
    ]);
    return Number(rows[0]?.size ?? 0);
  }

  /** Runs `VACUUM` on the saver's table so freed space is reusable and statistics fresh. */
  async vacuum(): Promise<void> {
    await this.setup();
    await this.driver.run(`VACUUM ${this.tables.checkpoints}`);
  }

  /** The schema holding the tables. */
  get schema(): string {
    return this.#schema;
  }
}
