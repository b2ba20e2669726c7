import type { DatabaseSync } from 'node:sqlite';
import { CtxloomError } from '../core/index.ts';
import { CompressionStateSchema } from './compression-state.ts';
import { assertRevision, type CompressionStore } from './compression-store.ts';

/** Options of {@link createSqliteCompressionStore}. */
export interface SqliteCompressionStoreOptions {
  /** An open `node:sqlite` database; the caller owns (and closes) it. */
  database: DatabaseSync;
  /** Table name, created if missing. Default `ctxloom_compression_state`; `[A-Za-z_][A-Za-z0-9_]*`. */
  table?: string;
}

/**
 * A {@link CompressionStore} in SQLite through Node's built-in `node:sqlite`: one row per
 * thread id (primary key) holding the JSON state and its revision. The compare-and-set runs
 * in one `BEGIN IMMEDIATE` transaction.
 */
export function createSqliteCompressionStore(options: SqliteCompressionStoreOptions): CompressionStore {
  const table = options.table ?? 'ctxloom_compression_state';
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/u.test(table)) {
    throw new CtxloomError({ code: 'invalid-argument', message: `bad table name "${table}"`, path: 'table' });
  }
  const { database } = options;
  database.exec(
    `CREATE TABLE IF NOT EXISTS ${table} (thread_id TEXT PRIMARY KEY, revision INTEGER NOT NULL, body TEXT NOT NULL)`,
  );
  const select = database.prepare(`SELECT revision, body FROM ${table} WHERE thread_id = ?`);
  const upsert = database.prepare(
    `INSERT INTO ${table} (thread_id, revision, body) VALUES (?, ?, ?)
     ON CONFLICT(thread_id) DO UPDATE SET revision = excluded.revision, body = excluded.body`,
  );
  return {
    async load(threadId) {
      const row = select.get(threadId) as { body: string } | undefined;
      return row === undefined ? undefined : CompressionStateSchema.parse(JSON.parse(row.body));
    },
    async save(state, { expectedRevision }) {
      database.exec('BEGIN IMMEDIATE');
      try {
        const row = select.get(state.threadId) as { revision: number } | undefined;
        const stored = row === undefined ? null : Number(row.revision);
        assertRevision(state.threadId, stored, expectedRevision);
        const next = { ...state, revision: (stored ?? -1) + 1 };
        upsert.run(state.threadId, next.revision, JSON.stringify(next));
        database.exec('COMMIT');
        return CompressionStateSchema.parse(JSON.parse(JSON.stringify(next)));
      } catch (error) {
        database.exec('ROLLBACK');
        if (CtxloomError.is(error)) throw error;
        throw new CtxloomError({
          code: 'storage-error',
          message: 'saving compression state failed',
          cause: error,
        });
      }
    },
  };
}
