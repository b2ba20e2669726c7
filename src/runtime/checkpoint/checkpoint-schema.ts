import { CtxloomError } from '../../core/errors.ts';
import type { SqlDriver } from './sql-driver.ts';

/** Version of the table layout; stored in `<prefix>meta` and checked on open. */
export const SCHEMA_VERSION = 2;

/** Fully qualified table names for one saver instance. */
export interface CheckpointTables {
  meta: string;
  threads: string;
  checkpoints: string;
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
  };
}

/**
 * Creates the tables when missing and checks the layout version. Checkpoint ids are stored
 * as bytes (see `encodeId`: 16 bytes for a UUID). Layout 2 (both dialects):
 * - `meta(schema_version)` — one row;
 * - `threads(id, thread_id, checkpoint_ns)` interns each (thread, namespace) to an integer;
 * - `checkpoints(thread, checkpoint_id, parent_id, depth, data, writes)`, keyed by
 *   (thread, checkpoint_id) — the only index. `data` holds the checkpoint without values,
 *   its metadata, the values of channels that changed at this step and the id of the
 *   checkpoint holding every other channel's value; `writes` holds all its pending writes.
 *   Both are deflated against the chain of ancestors (`depth` records back to a
 *   self-contained one, see `chain-reader.ts`). A row whose writes arrived before the
 *   checkpoint itself has `data` NULL until the checkpoint is put.
 *
 * Layout 1 (a `writes` table, sequence keys) is refused with a clear error.
 */
export async function ensureCheckpointSchema(options: {
  driver: SqlDriver;
  tables: CheckpointTables;
  schema?: string;
}): Promise<void> {
  const { driver, tables } = options;
  const postgres = driver.dialect === 'postgres';
  const integer = postgres ? 'BIGINT' : 'INTEGER';
  const bytes = postgres ? 'BYTEA' : 'BLOB';
  const threadId = postgres ? 'BIGINT GENERATED ALWAYS AS IDENTITY' : 'INTEGER PRIMARY KEY';
  const statements = [
    ...(postgres && options.schema !== undefined ? [`CREATE SCHEMA IF NOT EXISTS "${options.schema}"`] : []),
    `CREATE TABLE IF NOT EXISTS ${tables.meta} (schema_version INTEGER NOT NULL)`,
    // PostgreSQL: no index on id — rows are found by (thread_id, checkpoint_ns) and the
    // identity alone keeps ids unique.
    `CREATE TABLE IF NOT EXISTS ${tables.threads} (id ${threadId}, thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL, UNIQUE (thread_id, checkpoint_ns))`,
    `CREATE TABLE IF NOT EXISTS ${tables.checkpoints} (thread ${integer} NOT NULL, depth SMALLINT NOT NULL, checkpoint_id ${bytes} NOT NULL, parent_id ${bytes}, data ${bytes}, writes ${bytes}, PRIMARY KEY (thread, checkpoint_id))${postgres ? '' : ' WITHOUT ROWID'}`,
  ];
  await driver.transaction(async (executor) => {
    // Several server processes may set up the same tables at once; PostgreSQL's CREATE …
    // IF NOT EXISTS is not safe against that race, so serialise it on an advisory lock.
    if (postgres) await executor.all('SELECT pg_advisory_xact_lock(hashtext(?))', [tables.checkpoints]);
    const [metaStatement, ...rest] = statements.slice(postgres && options.schema !== undefined ? 1 : 0);
    if (postgres && options.schema !== undefined) await executor.run(statements[0] ?? '');
    await executor.run(metaStatement ?? '');
    const rows = await executor.all(`SELECT * FROM ${tables.meta}`);
    const row = rows[0];
    // Layout 1 stored (key, value) rows; layout 2 one schema_version row.
    const stored =
      row === undefined
        ? undefined
        : (row.schema_version ?? (row.key === 'schema_version' ? row.value : '?'));
    if (stored !== undefined && Number(stored) !== SCHEMA_VERSION) {
      throw new CtxloomError({
        code: 'storage-error',
        message: `checkpoint tables ${tables.checkpoints} have layout version ${String(stored)}; this ctxloom reads layout ${SCHEMA_VERSION} only — use a new schema or table prefix, or export the threads with the old version`,
        path: tables.meta,
      });
    }
    for (const statement of rest) await executor.run(statement);
    if (stored === undefined) {
      await executor.run(`INSERT INTO ${tables.meta} (schema_version) VALUES (?)`, [SCHEMA_VERSION]);
    }
  });
}
