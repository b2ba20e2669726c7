import { statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { CtxloomError } from '../../core/errors.ts';
import { requireNodeSqlite } from '../../llm/require-node-sqlite.ts';
import { closedSaverError } from './assert-saver-options.ts';
import { fromDriver } from './setup-failure.ts';
import type { SqlDriver, SqlExecutor, SqlParam, SqlRow } from './sql-driver.ts';

/**
 * How hard SQLite syncs to disk, as its `synchronous` pragma under WAL:
 * - `full` (default): every committed checkpoint survives a power loss.
 * - `normal`: a committed checkpoint survives a process crash (SIGKILL); the last few
 *   commits may roll back on power loss or OS crash. Faster.
 */
export type SqliteDurability = 'full' | 'normal';

/** Options of {@link createSqliteDriver}. */
export interface SqliteDriverOptions {
  /** Database file path, or `:memory:`. */
  path: string;
  /** See {@link SqliteDurability}. Default `full`. */
  durability?: SqliteDurability;
  /** Milliseconds to wait on a lock held by another process. Default 5000. */
  busyTimeoutMs?: number;
}

/**
 * A {@link SqlDriver} over Node's built-in `node:sqlite`: WAL journal, incremental
 * auto-vacuum (so `prune` can give pages back), foreign keys on. Statements are cached.
 * Transactions are serialised with an in-process queue because the connection is shared.
 */
export function createSqliteDriver(
  options: SqliteDriverOptions,
): SqlDriver & { database: DatabaseSync; open: () => DatabaseSync } {
  const { DatabaseSync } = requireNodeSqlite({ feature: 'a SQLite checkpoint store' });
  const database = openDatabase(DatabaseSync, options);
  const statements = new Map<string, ReturnType<DatabaseSync['prepare']>>();
  const prepare = (sql: string) => {
    let statement = statements.get(sql);
    if (statement === undefined) {
      statement = database.prepare(sql);
      statements.set(sql, statement);
    }
    return statement;
  };
  const executor: SqlExecutor = {
    async all(sql, params = []) {
      return prepare(sql).all(...(params as SqlParam[])) as SqlRow[];
    },
    async run(sql, params = []) {
      return Number(prepare(sql).run(...(params as SqlParam[])).changes);
    },
  };
  let queue: Promise<unknown> = Promise.resolve();
  let closed = false;
  return {
    dialect: 'sqlite',
    database,
    /** The database, or the closed saver's `storage-error` after `close()` (not Node's ERR_INVALID_STATE). */
    open() {
      if (closed) throw closedSaverError();
      return database;
    },
    all: (sql, params) => queued(() => executor.all(sql, params)),
    run: (sql, params) => queued(() => executor.run(sql, params)),
    transaction: (work) => queued(() => inTransaction('BEGIN IMMEDIATE', work)),
    read: (work) => queued(() => inTransaction('BEGIN', work)),
    async close() {
      if (closed) return;
      closed = true;
      await queue.catch(() => undefined);
      statements.clear();
      database.close();
    },
  };

  async function inTransaction<T>(begin: string, work: (executor: SqlExecutor) => Promise<T>): Promise<T> {
    database.exec(begin);
    try {
      const result = await work(executor);
      database.exec('COMMIT');
      return result;
    } catch (error) {
      if (database.isTransaction) database.exec('ROLLBACK');
      throw error;
    }
  }

  function queued<T>(work: () => Promise<T>): Promise<T> {
    if (closed) return Promise.reject(closedSaverError());
    const next = queue.then(work, work).catch((error: unknown) => {
      throw sqliteError(options.path, error);
    });
    queue = next.catch(() => undefined);
    return next;
  }
}

/**
 * SQLite's own error of a statement (`ERR_SQLITE_ERROR`: a full disk, a read-only file, an I/O
 * error, a lock another process held past the busy timeout) as a {@link CtxloomError} naming
 * the database file, with SQLite's error as `cause`: `conflict` for a lock (SQLITE_BUSY,
 * SQLITE_LOCKED), else `storage-error`. Anything else is returned as it is.
 */
function sqliteError(path: string, error: unknown): unknown {
  const { code, errcode, errstr } = (error ?? {}) as { code?: unknown; errcode?: unknown; errstr?: unknown };
  if (code !== 'ERR_SQLITE_ERROR' || CtxloomError.is(error)) return error;
  const primary = typeof errcode === 'number' ? errcode & 0xff : undefined;
  const reason = typeof errstr === 'string' ? errstr : error instanceof Error ? error.message : String(error);
  const locked = primary === 5 || primary === 6;
  return fromDriver(
    new CtxloomError({
      code: locked ? 'conflict' : 'storage-error',
      message: `SQLite: ${reason}${locked ? ' (another process holds the database)' : ''}`,
      file: path,
      cause: error,
    }),
  );
}

/** Opens the file and sets the pragmas; a failure is a {@link CtxloomError} naming `options.path`. */
function openDatabase(Database: typeof DatabaseSync, options: SqliteDriverOptions): DatabaseSync {
  let database: DatabaseSync | undefined;
  try {
    database = new Database(options.path);
    database.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))}`);
    // auto_vacuum only takes effect before the first table exists; harmless afterwards.
    database.exec('PRAGMA auto_vacuum = INCREMENTAL');
    if (options.path !== ':memory:') database.exec('PRAGMA journal_mode = WAL');
    database.exec(`PRAGMA synchronous = ${options.durability === 'normal' ? 'NORMAL' : 'FULL'}`);
    return database;
  } catch (error) {
    try {
      database?.close();
    } catch {
      // Closing a database that failed to open is best effort; the open error is the news.
    }
    throw openError(options.path, error);
  }
}

/**
 * Why a SQLite file could not be opened, as a {@link CtxloomError} naming the path the caller
 * gave (`file`) with SQLite's error as `cause`: a missing folder is `not-found`, a folder or
 * a file that is not a SQLite database `invalid-argument`, anything else (permissions, a
 * read-only or full disk) `storage-error`.
 */
function openError(path: string, cause: unknown): CtxloomError {
  const fail = (code: 'not-found' | 'invalid-argument' | 'storage-error', why: string) =>
    new CtxloomError({ code, message: `cannot open the SQLite database: ${why}`, file: path, cause });
  const kind = (target: string) => {
    try {
      return statSync(target).isDirectory() ? 'folder' : 'file';
    } catch {
      return 'missing';
    }
  };
  // SQLITE_NOTADB: the file exists and holds something else (or is damaged beyond its header).
  if ((cause as { errcode?: unknown } | null)?.errcode === 26) {
    return fail('invalid-argument', 'the file is not a SQLite database');
  }
  if (kind(path) === 'folder') return fail('invalid-argument', 'it is a folder, not a database file');
  if (kind(dirname(path)) !== 'folder') return fail('not-found', 'its folder does not exist');
  const reason = cause instanceof Error ? cause.message : String(cause);
  return fail('storage-error', `${reason} (check the permissions of the file and its folder)`);
}
