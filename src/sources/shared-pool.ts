import type { DatabaseSync } from 'node:sqlite';
import { CtxloomError } from '../core/index.ts';
import type { Analyzer } from '../retrieval/analyzer.ts';
import { type Bm25Index, createBm25Index } from '../retrieval/bm25-index.ts';
import { ensureFormat } from './format-version.ts';
import { openDatabase } from './memory-rows.ts';

/** Format version of the shared pool table (row `shared-pool` of `ctxloom_formats`). */
export const SHARED_POOL_FORMAT_VERSION = 1;

/** One published entry. */
export interface SharedEntry {
  namespace: string;
  key: string;
  content: string;
  /** Agent id of the publisher. */
  publisher: string;
  /** Increments on every re-publish of the same namespace/key, from 1. */
  version: number;
  /** Milliseconds since the epoch. */
  publishedAt: number;
  metadata: Record<string, unknown>;
}

/** Input of {@link SharedPool.publish}. */
export interface PublishInput {
  namespace: string;
  key: string;
  content: string;
  publisher: string;
  metadata?: Record<string, unknown>;
}

/**
 * Seed 001's `SharedMemoryPool`: entries that agents share **only by publishing them
 * explicitly**, grouped in namespaces (`team/research`, `project:42`), persisted in SQLite.
 */
export interface SharedPool {
  publish(input: PublishInput): SharedEntry;
  /** Removes an entry; false when absent. */
  retract(namespace: string, key: string): boolean;
  /** Entries of the namespaces, newest first. */
  list(namespaces: readonly string[]): SharedEntry[];
  /** BM25 search over the namespaces' entries, best first, with scores. */
  search(
    query: string,
    namespaces: readonly string[],
    limit?: number,
  ): Array<{ entry: SharedEntry; score: number }>;
  close(): void;
}

/** Options of {@link openSharedPool}. */
export interface SharedPoolOptions {
  path?: string;
  database?: DatabaseSync;
  analyzer?: Analyzer;
  now?: () => number;
}

const NAMESPACE = /^[\p{L}\p{N}_.:/-]{1,128}$/u;

/** Opens (creating if needed) a shared pool in SQLite. */
export function openSharedPool(options: SharedPoolOptions = {}): SharedPool {
  const owned = options.database === undefined;
  const database = options.database ?? openDatabase(options.path ?? ':memory:', 'the shared pool');
  ensureFormat(database, 'shared-pool', SHARED_POOL_FORMAT_VERSION, options.path);
  database.exec(`CREATE TABLE IF NOT EXISTS ctxloom_shared_pool (
    namespace TEXT NOT NULL, key TEXT NOT NULL, content TEXT NOT NULL, publisher TEXT NOT NULL,
    version INTEGER NOT NULL, published_at INTEGER NOT NULL, metadata TEXT NOT NULL,
    PRIMARY KEY (namespace, key))`);
  const now = options.now ?? Date.now;
  const indexes = new Map<string, { index: Bm25Index; generation: number }>();
  let generation = 0;

  const upsert =
    database.prepare(`INSERT INTO ctxloom_shared_pool (namespace, key, content, publisher, version, published_at, metadata)
    VALUES (?, ?, ?, ?, 1, ?, ?)
    ON CONFLICT (namespace, key) DO UPDATE SET content = excluded.content, publisher = excluded.publisher,
      version = version + 1, published_at = excluded.published_at, metadata = excluded.metadata
    RETURNING *`);
  const remove = database.prepare('DELETE FROM ctxloom_shared_pool WHERE namespace = ? AND key = ?');
  const select = database.prepare(
    'SELECT * FROM ctxloom_shared_pool WHERE namespace = ? ORDER BY published_at DESC, key',
  );

  const list = (namespaces: readonly string[]): SharedEntry[] =>
    namespaces
      .flatMap((namespace) => (select.all(namespace) as unknown as Row[]).map(fromRow))
      .sort((left, right) => right.publishedAt - left.publishedAt);

  return {
    publish(input) {
      if (!NAMESPACE.test(input.namespace)) {
        throw new CtxloomError({
          code: 'invalid-argument',
          message: 'namespace must be 1–128 letters, digits or _ . : / -',
          path: 'namespace',
        });
      }
      const row = upsert.get(
        input.namespace,
        input.key,
        input.content,
        input.publisher,
        now(),
        JSON.stringify(input.metadata ?? {}),
      ) as unknown as Row;
      generation++;
      return fromRow(row);
    },
    retract(namespace, key) {
      const changed = Number(remove.run(namespace, key).changes) > 0;
      if (changed) generation++;
      return changed;
    },
    list,
    search(query, namespaces, limit = 20) {
      const cacheKey = [...namespaces].sort().join('\u0000');
      let cached = indexes.get(cacheKey);
      const entries = new Map(
        list(namespaces).map((entry) => [`${entry.namespace}\u0000${entry.key}`, entry]),
      );
      if (cached === undefined || cached.generation !== generation) {
        const index = createBm25Index(options.analyzer === undefined ? {} : { analyzer: options.analyzer });
        for (const [id, entry] of entries) index.add(id, entry.content);
        cached = { index, generation };
        indexes.set(cacheKey, cached);
      }
      return cached.index.search(query, { limit }).flatMap((hit) => {
        const entry = entries.get(hit.id);
        return entry === undefined ? [] : [{ entry, score: hit.score }];
      });
    },
    close() {
      if (owned) database.close();
    },
  };
}

interface Row {
  namespace: string;
  key: string;
  content: string;
  publisher: string;
  version: number;
  published_at: number;
  metadata: string;
}

function fromRow(row: Row): SharedEntry {
  return {
    namespace: row.namespace,
    key: row.key,
    content: row.content,
    publisher: row.publisher,
    version: Number(row.version),
    publishedAt: Number(row.published_at),
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
  };
}
