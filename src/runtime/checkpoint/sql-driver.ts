/** A row returned by a {@link SqlExecutor}: column name → value (bytes as `Uint8Array`). */
export type SqlRow = Record<string, unknown>;

/** A parameter of a SQL statement. */
export type SqlParam = string | number | bigint | null | Uint8Array;

/**
 * Runs SQL written with `?` placeholders. Each driver translates placeholders to its own
 * syntax (`$1` for PostgreSQL) so the savers share one set of statements.
 */
export interface SqlExecutor {
  /** Runs a query and returns all rows. */
  all(sql: string, params?: readonly SqlParam[]): Promise<SqlRow[]>;
  /** Runs a statement and returns the number of changed rows. */
  run(sql: string, params?: readonly SqlParam[]): Promise<number>;
}

/** A database connection (or pool) the SQL checkpoint savers run on. */
export interface SqlDriver extends SqlExecutor {
  /** Which SQL dialect the statements must be written in. */
  readonly dialect: 'sqlite' | 'postgres';
  /**
   * Runs `work` inside one transaction: committed when it resolves, rolled back when it
   * throws. Statements of other callers never interleave with it.
   */
  transaction<T>(work: (executor: SqlExecutor) => Promise<T>): Promise<T>;
  /**
   * Runs `work` on one consistent snapshot (PostgreSQL `REPEATABLE READ READ ONLY`, SQLite a
   * deferred read transaction): a read of several statements never sees half of another
   * process's commit (a prune re-chaining rows between two of its statements).
   */
  read<T>(work: (executor: SqlExecutor) => Promise<T>): Promise<T>;
  /** Releases the connection (pool). Idempotent. */
  close(): Promise<void>;
}

/** Rewrites `?` placeholders to PostgreSQL's `$1, $2, …` (no `?` inside literals is assumed). */
export function toPostgresPlaceholders(sql: string): string {
  let index = 0;
  return sql.replace(/\?/g, () => {
    index += 1;
    return `$${index}`;
  });
}

/** Reads a byte column as a `Uint8Array` (pg returns `Buffer`, node:sqlite `Uint8Array`). */
export function rowBytes(row: SqlRow, column: string): Uint8Array | undefined {
  const value = row[column];
  if (value === null || value === undefined) return undefined;
  if (value instanceof Uint8Array) return value;
  if (typeof value === 'string') return new TextEncoder().encode(value);
  throw new TypeError(`column ${column} is not bytes`);
}

/** Reads a text column. */
export function rowText(row: SqlRow, column: string): string | undefined {
  const value = row[column];
  if (value === null || value === undefined) return undefined;
  return String(value);
}
