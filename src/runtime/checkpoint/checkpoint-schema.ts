import type { SqlDriver } from './sql-driver.ts';

/** Version of the table layout; stored in `<prefix>meta` and checked on open. */
export const SCHEMA_VERSION = 1;

/** Fully qualified table names for one saver instance. */
export interface CheckpointTables {
  meta: string;
  threads: string;
  checkpoints: string;
  writes: string;
}

/** Table names for a dialect: PostgreSQL tables live in `schema`, SQLite ones carry `prefix`. */
export function checkpointTables(options: { schema?: string; prefix: string }): CheckpointTables {
  const qualify = (name: string) =>
    options.schema === undefined
      ? `${options.prefix}${name}`
      : `"${options.schema}".${options.prefix}${name}`;
  return {
    meta: qualify('meta'),
    threads: qualify('threads'),
    checkpoints: qualify('checkpoints'),
    writes: qualify('writes'),
  };
}

/**
 * Creates the tables when missing. Checkpoint and task ids are stored as bytes (see
 * `encodeId`: 16 bytes for a UUID). Layout (both dialects):
 * - `threads(id, thread_id, checkpoint_ns)` interns each (thread, namespace) to an integer;
 * - `checkpoints(seq, thread, checkpoint_id, parent_seq, parent_checkpoint_id, base_seq, data)` —
 *   the parent is a `seq` when it is stored (its id only otherwise); `data`
 *   holds the checkpoint without values, its metadata, the values of channels that changed
 *   at this step, and where every other channel's current value is stored; it is deflated
 *   against the header of record `base_seq` (an earlier checkpoint of the chain) when set;
 * - `writes(thread, checkpoint_id, task_id, data)` — all pending writes of one task.
 */
export async function ensureCheckpointSchema(options: {
  driver: SqlDriver;
  tables: CheckpointTables;
  schema?: string;
}): Promise<void> {
  const { driver, tables } = options;
  const postgres = driver.dialect === 'postgres';
  const id = postgres ? 'BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY' : 'INTEGER PRIMARY KEY';
  const bytes = postgres ? 'BYTEA' : 'BLOB';
  const integer = postgres ? 'BIGINT' : 'INTEGER';
  const statements = [
    ...(postgres && options.schema !== undefined ? [`CREATE SCHEMA IF NOT EXISTS "${options.schema}"`] : []),
    `CREATE TABLE IF NOT EXISTS ${tables.meta} (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
    `CREATE TABLE IF NOT EXISTS ${tables.threads} (id ${id}, thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL, UNIQUE (thread_id, checkpoint_ns))`,
    `CREATE TABLE IF NOT EXISTS ${tables.checkpoints} (seq ${id}, thread ${integer} NOT NULL, checkpoint_id ${bytes} NOT NULL, parent_seq ${integer}, parent_checkpoint_id ${bytes}, base_seq ${integer}, data ${bytes} NOT NULL, UNIQUE (thread, checkpoint_id))`,
    `CREATE TABLE IF NOT EXISTS ${tables.writes} (thread ${integer} NOT NULL, checkpoint_id ${bytes} NOT NULL, task_id ${bytes} NOT NULL, data ${bytes} NOT NULL, PRIMARY KEY (thread, checkpoint_id, task_id))${postgres ? '' : ' WITHOUT ROWID'}`,
  ];
  await driver.transaction(async (executor) => {
    // Several server processes may set up the same tables at once; PostgreSQL's CREATE …
    // IF NOT EXISTS is not safe against that race, so serialise it on an advisory lock.
    if (postgres) await executor.all('SELECT pg_advisory_xact_lock(hashtext(?))', [tables.checkpoints]);
    for (const statement of statements) await executor.run(statement);
    const rows = await executor.all(`SELECT value FROM ${tables.meta} WHERE key = ?`, ['schema_version']);
    const stored = rows[0]?.value;
    if (stored === undefined) {
      await executor.run(`INSERT INTO ${tables.meta} (key, value) VALUES (?, ?)`, [
        'schema_version',
        String(SCHEMA_VERSION),
      ]);
    } else if (Number(stored) !== SCHEMA_VERSION) {
      throw new Error(`checkpoint schema version ${String(stored)} is not ${SCHEMA_VERSION}`);
    }
  });
}
