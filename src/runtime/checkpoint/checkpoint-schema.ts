import { CtxloomError } from '../../core/errors.ts';
import { CheckpointVersionError } from './checkpoint-version-error.ts';
import { RECORD_FORMAT_VERSION } from './record-codec.ts';
import type { SqlDriver, SqlExecutor } from './sql-driver.ts';
import { NAME_ROW_ID } from './thread-keys.ts';

/** Version of the table layout; stored in the checkpoints table's version row and checked on open. */
export const SCHEMA_VERSION = 3;

/** Thread key of the version rows: negative, so never a (thread, namespace)'s key. */
const VERSION_ROW_THREAD = -1;
/**
 * `checkpoint_id` of the row whose `depth` is the newest record format a process opened the
 * database with (since issue 27; a database without it holds formats ≤ 5). Layout 3 readers
 * before it read only the layout row (`NAME_ROW_ID`), so adding it is not a new layout.
 */
const FORMAT_ROW_ID = Uint8Array.of(1);

/** Fully qualified table names for one saver instance. */
export interface CheckpointTables {
  /** The one table of layout 3. */
  checkpoints: string;
  /** The version table of layouts 1 and 2: looked for only to refuse them with a clear error. */
  legacyMeta: string;
  /** Leases held in rows (`rowLeases`: SQLite's writer leases, PostgreSQL's row leases), created on the first lease only. */
  leases: string;
}

/** Table names for a dialect: PostgreSQL tables live in `schema`, SQLite ones carry `prefix`. */
export function checkpointTables(options: { schema?: string; prefix: string }): CheckpointTables {
  const qualify = (name: string) =>
    options.schema === undefined
      ? `${options.prefix}${name}`
      : `"${options.schema}".${options.prefix}${name}`;
  return { checkpoints: qualify('checkpoints'), legacyMeta: qualify('meta'), leases: qualify('leases') };
}

/**
 * Creates the table when missing and checks the layout version. Layout 3 (both dialects,
 * decision 017) is one table, `checkpoints(thread, depth, checkpoint_id, parent_id, data,
 * writes)`, keyed by (thread, checkpoint_id) — the only index:
 * - a checkpoint row: `data` holds the checkpoint without values, its metadata, the values
 *   of channels that changed at this step and the id of the checkpoint holding every other
 *   channel's value; `writes` holds all its pending writes. Both are deflated against the
 *   chain of ancestors (`depth` records back to a self-contained one, see `chain-reader.ts`).
 *   A row whose writes arrived before the checkpoint itself has `data` NULL until the
 *   checkpoint is put. Checkpoint ids are stored as bytes (`encodeId`: 16 for a UUID);
 * - a name row per (thread, namespace): `checkpoint_id` 0x00, the name in `writes`
 *   (`thread-keys.ts`), which also says how `thread` is derived from the name;
 * - the version rows: `thread` −1, `checkpoint_id` 0x00, `depth` = {@link SCHEMA_VERSION};
 *   `checkpoint_id` 0x01, `depth` = the newest record format a process opened it with.
 *
 * A newer layout or record format than this ctxloom's is a {@link CheckpointVersionError},
 * before anything is read or written; layouts 1 and 2 (a `meta` table beside the
 * checkpoints) are refused with a clear error.
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
  await driver.transaction(async (executor) => {
    // Several server processes may set up the same tables at once; PostgreSQL's CREATE …
    // IF NOT EXISTS is not safe against that race, so serialise it on an advisory lock.
    if (postgres) {
      await executor.all('SELECT pg_advisory_xact_lock(hashtext(?))', [tables.checkpoints]);
      if (options.schema !== undefined) await executor.run(`CREATE SCHEMA IF NOT EXISTS "${options.schema}"`);
    }
    await refuseLegacyLayout(executor, tables, postgres);
    await executor.run(
      `CREATE TABLE IF NOT EXISTS ${tables.checkpoints} (thread ${integer} NOT NULL, depth SMALLINT NOT NULL, checkpoint_id ${bytes} NOT NULL, parent_id ${bytes}, data ${bytes}, writes ${bytes}, PRIMARY KEY (thread, checkpoint_id))${postgres ? '' : ' WITHOUT ROWID'}`,
    );
    const rows = await executor.all(
      `SELECT checkpoint_id, depth FROM ${tables.checkpoints} WHERE thread = ? AND checkpoint_id IN (?, ?)`,
      [VERSION_ROW_THREAD, NAME_ROW_ID, FORMAT_ROW_ID],
    );
    const version = (id: Uint8Array) => {
      const row = rows.find((candidate) => Buffer.from(candidate.checkpoint_id as Uint8Array).equals(id));
      return row === undefined ? undefined : Number(row.depth);
    };
    const layout = version(NAME_ROW_ID);
    const format = version(FORMAT_ROW_ID);
    // Newer data first, before anything is read or written: one clear error naming both versions.
    if (layout !== undefined && layout > SCHEMA_VERSION) {
      throw new CheckpointVersionError({
        kind: 'layout',
        stored: layout,
        supported: SCHEMA_VERSION,
        where: tables.checkpoints,
      });
    }
    if (layout !== undefined && layout !== SCHEMA_VERSION)
      throw layoutError(tables, layout, tables.checkpoints);
    if (format !== undefined && format > RECORD_FORMAT_VERSION) {
      throw new CheckpointVersionError({
        kind: 'record-format',
        stored: format,
        supported: RECORD_FORMAT_VERSION,
        where: tables.checkpoints,
      });
    }
    const upsert = `INSERT INTO ${tables.checkpoints} (thread, depth, checkpoint_id) VALUES (?, ?, ?) ON CONFLICT (thread, checkpoint_id) DO UPDATE SET depth = excluded.depth`;
    if (layout === undefined) await executor.run(upsert, [VERSION_ROW_THREAD, SCHEMA_VERSION, NAME_ROW_ID]);
    // This process writes records up to its own format from now on: say so, so older processes refuse at start-up.
    if (format === undefined || format < RECORD_FORMAT_VERSION) {
      await executor.run(upsert, [VERSION_ROW_THREAD, RECORD_FORMAT_VERSION, FORMAT_ROW_ID]);
    }
  });
}

/** Layouts 1 and 2 kept their version in `<prefix>meta`: refuse them, naming the version. */
async function refuseLegacyLayout(executor: SqlExecutor, tables: CheckpointTables, postgres: boolean) {
  const exists = postgres
    ? (await executor.all('SELECT to_regclass(?) IS NOT NULL AS found', [tables.legacyMeta]))[0]?.found ===
      true
    : (
        await executor.all(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`, [
          tables.legacyMeta,
        ])
      ).length > 0;
  if (!exists) return;
  const row = (await executor.all(`SELECT * FROM ${tables.legacyMeta}`))[0];
  // Layout 1 stored (key, value) rows; layout 2 one schema_version row.
  const stored =
    row === undefined ? '?' : (row.schema_version ?? (row.key === 'schema_version' ? row.value : '?'));
  throw layoutError(tables, stored, tables.legacyMeta);
}

function layoutError(tables: CheckpointTables, stored: unknown, path: string): CtxloomError {
  return new CtxloomError({
    code: 'storage-error',
    message: `checkpoint tables ${tables.checkpoints} have layout version ${String(stored)}; this ctxloom reads layout ${SCHEMA_VERSION} only — use a new schema or table prefix, or export the threads with the old version`,
    path,
  });
}
