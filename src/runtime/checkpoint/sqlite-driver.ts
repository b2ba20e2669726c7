import type { DatabaseSync } from 'node:sqlite';
import { requireNodeSqlite } from '../../llm/require-node-sqlite.ts';
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
export function createSqliteDriver(options: SqliteDriverOptions): SqlDriver & { database: DatabaseSync } {
  const { DatabaseSync } = requireNodeSqlite({ feature: 'a SQLite checkpoint store' });
  const database = new DatabaseSync(options.path);
  database.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))}`);
  // auto_vacuum only takes effect before the first table exists; harmless afterwards.
  database.exec('PRAGMA auto_vacuum = INCREMENTAL');
  if (options.path !== ':memory:') database.exec('PRAGMA journal_mode = WAL');
  database.exec(`PRAGMA synchronous = ${options.durability === 'normal' ? 'NORMAL' : 'FULL'}`);
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
    const next = queue.then(work, work);
    queue = next.catch(() => undefined);
    return next;
  }
}
