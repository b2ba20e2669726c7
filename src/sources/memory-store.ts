import type { DatabaseSync } from 'node:sqlite';
import { CtxloomError } from '../core/index.ts';
import type { Embedder } from '../retrieval/embedder.ts';
import { createMemoryCore, type MemoryCoreOptions } from './memory-core.ts';
import type { MemoryEntry } from './memory-entry.ts';
import { fromRow, migrate, openDatabase, type Row } from './memory-rows.ts';
import { createSqliteMemoryVectors } from './memory-vectors.ts';
import type { MemoryStore } from './memory-view.ts';

export { entryText } from './memory-core.ts';
export type { MemoryEntry } from './memory-entry.ts';
export { MEMORY_FORMAT_VERSION } from './memory-rows.ts';
export type { MemoryStore, MemoryView } from './memory-view.ts';

/** Options of {@link openMemoryStore}. */
export interface MemoryStoreOptions extends MemoryCoreOptions {
  /** SQLite file path, or `:memory:` (default). Ignored when `database` is given. */
  path?: string;
  /** An open `node:sqlite` database to share (its owner closes it). */
  database?: DatabaseSync;
  /**
   * Makes L4 hybrid: messages are embedded lazily on the first recall after they were added
   * (one batch), vectors are stored in SQLite per model, and recall merges the lexical and
   * cosine top-k with `vectorScore = (max(cosine, 0) + normalised BM25) / 2`. Default none
   * (lexical L4, the offline default).
   */
  embedder?: Embedder;
}

/**
 * Opens (and creates or migrates) a memory store in SQLite through `node:sqlite`. Tiers:
 * L1 = the latest `recentLimit` messages; L2 = messages scored ≥ `importantThreshold` by the
 * scorer or marked explicitly; L4 = a lexical conversation index over every message, rebuilt
 * in memory on open (rows are the persisted truth; ~0.3 s per 10k messages). One store
 * instance should write a given agent/session at a time: it keeps that conversation in memory
 * and does not see rows another process appends until it is reopened. For several processes
 * on one database, use `createPostgresMemoryStore`.
 * @example
 * const memory = openMemoryStore({ path: 'memory.db', agentId: 'tutor', sessionId: 's1' });
 * await memory.append(messages);
 * memory.important(); // decisions, requirements, corrections
 */
export function openMemoryStore(options: MemoryStoreOptions): MemoryStore {
  const owned = options.database === undefined;
  const database = options.database ?? openDatabase(options.path ?? ':memory:');
  migrate(database, options.path);
  const { agentId, sessionId } = options;
  const insert = database.prepare(
    `INSERT OR IGNORE INTO ctxloom_memory (agent_id, session_id, seq, id, message, text, importance, reasons, marked, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?)`,
  );
  const selectAll = database.prepare(
    'SELECT * FROM ctxloom_memory WHERE agent_id = ? AND session_id = ? ORDER BY seq',
  );
  const updateMark = database.prepare(
    'UPDATE ctxloom_memory SET marked = ?, importance = ?, reasons = ? WHERE agent_id = ? AND session_id = ? AND id = ?',
  );
  const entries: MemoryEntry[] = (selectAll.all(agentId, sessionId) as unknown as Row[]).map(fromRow);
  const core = createMemoryCore({
    ...options,
    entries,
    vectors:
      options.embedder === undefined
        ? undefined
        : createSqliteMemoryVectors({ database, agentId, sessionId, embedder: options.embedder }),
  });

  return {
    ...core.view,
    async append(messages) {
      const added = core.plan(messages);
      database.exec('BEGIN');
      try {
        for (const entry of added) {
          insert.run(
            agentId,
            sessionId,
            entry.seq,
            entry.id,
            JSON.stringify(entry.message),
            entry.text,
            entry.importance,
            JSON.stringify(entry.reasons),
            entry.createdAt,
          );
        }
        database.exec('COMMIT');
      } catch (error) {
        database.exec('ROLLBACK');
        throw new CtxloomError({
          code: 'storage-error',
          message: 'could not append to memory',
          cause: error,
          ...(options.path === undefined ? {} : { file: options.path }),
        });
      }
      core.commit(added);
      return added.map((entry) => ({ ...entry, reasons: [...entry.reasons] }));
    },
    async mark(id, important) {
      const mark = core.planMark(id, important);
      updateMark.run(
        important ? 1 : 0,
        mark.importance,
        JSON.stringify(mark.reasons),
        agentId,
        sessionId,
        id,
      );
      core.commitMark(id, mark);
    },
    view: () => ({ ...core.view }),
    async close() {
      if (owned) database.close();
    },
  };
}
