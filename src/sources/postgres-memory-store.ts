import type pg from 'pg';
import { CtxloomError } from '../core/index.ts';
import type { Embedder } from '../retrieval/embedder.ts';
import { createMemoryCore, type MemoryCoreOptions } from './memory-core.ts';
import type { MemoryEntry } from './memory-entry.ts';
import { fromRow, MEMORY_FORMAT_VERSION, type Row } from './memory-rows.ts';
import { createMemoryVectors, type StoredVector } from './memory-vectors.ts';
import type { MemoryStore } from './memory-view.ts';
import { openPostgresPool, poolExhaustedError } from './postgres-pool.ts';

/** Options of {@link createPostgresMemoryStore}. Give a `pool` or a `connectionString`. */
export interface PostgresMemoryStoreOptions extends MemoryCoreOptions {
  /** An existing pool, shared (its owner ends it). */
  pool?: pg.Pool;
  /** e.g. `postgres://postgres@127.0.0.1:5432/test`. */
  connectionString?: string;
  /** Schema holding the tables; created when missing. Default `public`. */
  schema?: string;
  /**
   * Size of the pool the store opens for `connectionString`: a whole number from 1 to 10 000;
   * default 4. Refused beside `pool` (that pool keeps its own `max`).
   */
  maxConnections?: number;
  /**
   * How long a read or write waits for a connection of the store's own pool, in ms: while all
   * `maxConnections` are in use, or while one opens. A whole number from 1 to 2 147 483 647;
   * default 10 000, then `storage-error` with `details.reason` `pool-exhausted`, nothing
   * stored. Refused beside `pool` (set that pool's `connectionTimeoutMillis`).
   */
  connectionTimeoutMs?: number;
  /** As in `openMemoryStore`: hybrid L4, vectors stored per model in `ctxloom_memory_vectors`. */
  embedder?: Embedder;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/u;

/**
 * The memory store of `openMemoryStore` on PostgreSQL through `pg`: same tiers (L1 recent,
 * L2 important, L4 lexical or hybrid recall), same rows (`ctxloom_memory`, one per message,
 * keyed by agent, session and message id; `ctxloom_formats` holds the format version and a
 * newer one is refused), for servers that share one database. Reads are served from the
 * conversation loaded at open; each append is one transaction. One instance should write a
 * given agent/session at a time (as with SQLite); rows another process added under the same
 * ids are skipped, never duplicated.
 * @example
 * const memory = await createPostgresMemoryStore({ connectionString, agentId: 'tutor', sessionId: 's1' });
 * await memory.append(messages);
 */
export async function createPostgresMemoryStore(options: PostgresMemoryStoreOptions): Promise<MemoryStore> {
  const schema = options.schema ?? 'public';
  if (!IDENTIFIER.test(schema)) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: `schema must be a plain SQL identifier (letters, digits, _), got "${schema}"`,
      path: 'schema',
    });
  }
  if (options.pool === undefined && options.connectionString === undefined) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: 'give a pool or a connectionString',
      path: 'connectionString',
    });
  }
  const { pool, owned } = openPostgresPool({
    pool: options.pool,
    connectionString: options.connectionString,
    maxConnections: options.maxConnections,
    defaultMaxConnections: 4,
    connectionTimeoutMs: options.connectionTimeoutMs,
    feature: 'createPostgresMemoryStore with a connectionString',
  });
  const table = `"${schema}".ctxloom_memory`;
  const vectorsTable = `"${schema}".ctxloom_memory_vectors`;
  const { agentId, sessionId } = options;
  try {
    await setup(pool, schema);
    const rows = await pool.query(
      `SELECT agent_id, session_id, seq, id, message, text, importance, reasons, marked, created_at
         FROM ${table} WHERE agent_id = $1 AND session_id = $2 ORDER BY seq`,
      [agentId, sessionId],
    );
    const entries: MemoryEntry[] = rows.rows.map((row: Row) =>
      fromRow({ ...row, seq: Number(row.seq), created_at: Number(row.created_at) }),
    );
    let stored: StoredVector[] = [];
    if (options.embedder !== undefined) {
      const result = await pool.query(
        `SELECT id, vector FROM ${vectorsTable} WHERE agent_id = $1 AND session_id = $2 AND model = $3`,
        [agentId, sessionId, options.embedder.name],
      );
      stored = result.rows.map((row: { id: string; vector: Buffer }) => ({
        id: row.id,
        vector: new Uint8Array(row.vector),
      }));
    }
    const embedder = options.embedder;
    const core = createMemoryCore({
      ...options,
      entries,
      vectors:
        embedder === undefined
          ? undefined
          : createMemoryVectors({
              embedder,
              stored,
              persist: (vectors) =>
                transaction(pool, async (client) => {
                  for (const row of vectors) {
                    await client.query(
                      `INSERT INTO ${vectorsTable} (agent_id, session_id, id, model, vector) VALUES ($1, $2, $3, $4, $5)
                       ON CONFLICT (agent_id, session_id, id) DO UPDATE SET model = excluded.model, vector = excluded.vector`,
                      [agentId, sessionId, row.id, embedder.name, Buffer.from(row.vector)],
                    );
                  }
                }).catch((error: unknown) => {
                  throw storageError('could not store memory vectors', error, pool);
                }),
            }),
    });
    return {
      ...core.view,
      async append(messages) {
        const planned = core.plan(messages);
        if (planned.length === 0) return [];
        const inserted = new Set<string>();
        await transaction(pool, async (client) => {
          for (const entry of planned) {
            const result = await client.query(
              `INSERT INTO ${table} (agent_id, session_id, seq, id, message, text, importance, reasons, marked, created_at)
               VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 0, $9) ON CONFLICT DO NOTHING`,
              [
                agentId,
                sessionId,
                entry.seq,
                entry.id,
                JSON.stringify(entry.message),
                entry.text,
                entry.importance,
                JSON.stringify(entry.reasons),
                entry.createdAt,
              ],
            );
            if ((result.rowCount ?? 0) > 0) inserted.add(entry.id);
          }
        }).catch((error: unknown) => {
          throw storageError('could not append to memory', error, pool);
        });
        const added = planned.filter((entry) => inserted.has(entry.id));
        core.commit(added);
        return added.map((entry) => ({ ...entry, reasons: [...entry.reasons] }));
      },
      async mark(id, important) {
        const mark = core.planMark(id, important);
        await pool
          .query(
            `UPDATE ${table} SET marked = $1, importance = $2, reasons = $3 WHERE agent_id = $4 AND session_id = $5 AND id = $6`,
            [important ? 1 : 0, mark.importance, JSON.stringify(mark.reasons), agentId, sessionId, id],
          )
          .catch((error: unknown) => {
            throw storageError('could not mark a memory entry', error, pool);
          });
        core.commitMark(id, mark);
      },
      view: () => ({ ...core.view }),
      async close() {
        if (owned) await pool.end();
      },
    };
  } catch (error) {
    if (owned) await pool.end().catch(() => undefined);
    if (CtxloomError.is(error)) throw error;
    throw storageError('could not open the PostgreSQL memory store', error, pool);
  }
}

/** Creates the schema and tables (serialised on an advisory lock) and checks the format version. */
async function setup(pool: pg.Pool, schema: string): Promise<void> {
  await transaction(pool, async (client) => {
    await client.query("SELECT pg_advisory_xact_lock(hashtextextended('ctxloom-memory-setup:' || $1, 0))", [
      schema,
    ]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS "${schema}".ctxloom_formats (component TEXT PRIMARY KEY, version INTEGER NOT NULL)`,
    );
    const format = await client.query(
      `SELECT version FROM "${schema}".ctxloom_formats WHERE component = 'memory'`,
    );
    const version = format.rows[0]?.version as number | undefined;
    if (version === undefined) {
      await client.query(
        `INSERT INTO "${schema}".ctxloom_formats (component, version) VALUES ('memory', $1)`,
        [MEMORY_FORMAT_VERSION],
      );
    } else if (version > MEMORY_FORMAT_VERSION) {
      throw new CtxloomError({
        code: 'storage-error',
        message: `memory format ${version} is newer than this ctxloom supports (${MEMORY_FORMAT_VERSION})`,
        path: `${schema}.ctxloom_formats`,
      });
    }
    await client.query(`CREATE TABLE IF NOT EXISTS "${schema}".ctxloom_memory (
      agent_id TEXT NOT NULL, session_id TEXT NOT NULL, seq INTEGER NOT NULL, id TEXT NOT NULL,
      message TEXT NOT NULL, text TEXT NOT NULL, importance DOUBLE PRECISION NOT NULL, reasons TEXT NOT NULL,
      marked INTEGER NOT NULL, created_at BIGINT NOT NULL,
      PRIMARY KEY (agent_id, session_id, id))`);
    await client.query(
      `CREATE INDEX IF NOT EXISTS ctxloom_memory_order ON "${schema}".ctxloom_memory (agent_id, session_id, seq)`,
    );
    await client.query(`CREATE TABLE IF NOT EXISTS "${schema}".ctxloom_memory_vectors (
      agent_id TEXT NOT NULL, session_id TEXT NOT NULL, id TEXT NOT NULL, model TEXT NOT NULL,
      vector BYTEA NOT NULL, PRIMARY KEY (agent_id, session_id, id))`);
  });
}

async function transaction(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<void>): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await work(client);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

function storageError(message: string, error: unknown, pool: pg.Pool): CtxloomError {
  if (CtxloomError.is(error)) return error;
  const exhausted = poolExhaustedError(error, pool);
  if (exhausted !== undefined) return exhausted;
  return new CtxloomError({
    code: 'storage-error',
    message: `${message}: ${error instanceof Error ? error.message : String(error)}`,
    cause: error,
  });
}
