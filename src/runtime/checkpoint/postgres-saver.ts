import type { SerializerProtocol } from '@langchain/langgraph-checkpoint';
import type pg from 'pg';
import { checkpointTables } from './checkpoint-schema.ts';
import { createPostgresDriver } from './postgres-driver.ts';
import type { RecordCompression } from './record-codec.ts';
import { SqlCheckpointSaver } from './sql-checkpoint-saver.ts';

/** Options of {@link PostgresSaver}. Give a `pool` or a `connectionString`. */
export interface PostgresSaverOptions {
  pool?: pg.Pool;
  /** e.g. `postgres://postgres@127.0.0.1:5432/test`. */
  connectionString?: string;
  /** Schema holding the tables; created when missing. Default `public`. */
  schema?: string;
  /** Table name prefix. Default `ctxloom_cp_`. */
  prefix?: string;
  /** Record compression. Default `deflate`. */
  compression?: RecordCompression;
  serde?: SerializerProtocol;
}

/**
 * LangGraph's `BaseCheckpointSaver` on PostgreSQL through `pg` — the path for many server
 * processes sharing one database. Same layout and linear storage as the SQLite saver;
 * every write is one transaction, so concurrent processes never see half a checkpoint.
 */
export class PostgresSaver extends SqlCheckpointSaver {
  readonly #schema: string;

  constructor(options: PostgresSaverOptions) {
    const schema = options.schema ?? 'public';
    super({
      driver: createPostgresDriver({
        ...(options.pool === undefined ? {} : { pool: options.pool }),
        ...(options.connectionString === undefined ? {} : { connectionString: options.connectionString }),
      }),
      tables: checkpointTables({ schema, prefix: options.prefix ?? 'ctxloom_cp_' }),
      schema,
      ...(options.compression === undefined ? {} : { compression: options.compression }),
      ...(options.serde === undefined ? {} : { serde: options.serde }),
    });
    this.#schema = schema;
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
