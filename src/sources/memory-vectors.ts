import type { DatabaseSync } from 'node:sqlite';
import { CtxloomError } from '../core/index.ts';
import type { Embedder } from '../retrieval/embedder.ts';
import { createVectorIndex, type VectorHit, type VectorIndex } from '../retrieval/vector-index.ts';

/** The embedded side of a memory's L4: vectors persisted by the store, searched in memory. */
export interface MemoryVectors {
  /** Embeds the texts not embedded yet (one `embed` call), stores and indexes them. */
  ensure(entries: ReadonlyArray<{ id: string; text: string }>, signal?: AbortSignal): Promise<void>;
  /** Embeds the query and returns the best `limit` entries by cosine. */
  search(query: string, limit: number, signal?: AbortSignal): Promise<VectorHit[]>;
}

/** One stored vector: little-endian Float32 bytes. */
export interface StoredVector {
  id: string;
  vector: Uint8Array;
}

/**
 * Vectors of one agent/session made by `embedder`, over any persistence: `stored` are the
 * rows of this model (rows of another dimension are ignored and re-embedded on demand),
 * `persist` stores new ones (all or nothing) before they are searched.
 */
export function createMemoryVectors(options: {
  embedder: Embedder;
  stored: readonly StoredVector[];
  persist: (rows: StoredVector[]) => Promise<void> | void;
}): MemoryVectors {
  const { embedder } = options;
  const index: VectorIndex = createVectorIndex({ dimensions: embedder.dimensions });
  for (const row of options.stored) {
    if (row.vector.byteLength !== embedder.dimensions * 4) continue;
    const copy = row.vector.slice();
    index.add(row.id, new Float32Array(copy.buffer, copy.byteOffset, embedder.dimensions));
  }
  return {
    async ensure(entries, signal) {
      const pending = entries.filter((entry) => !index.has(entry.id));
      if (pending.length === 0) return;
      const vectors = await embedder.embed(
        pending.map((entry) => entry.text),
        signal === undefined ? {} : { signal },
      );
      if (vectors.length !== pending.length) {
        throw new CtxloomError({
          code: 'model-error',
          message: `${embedder.name} returned ${vectors.length} vectors for ${pending.length} texts`,
        });
      }
      const rows = pending.map((entry, position) => {
        const vector = vectors[position] as Float32Array;
        return { id: entry.id, vector: new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength) };
      });
      try {
        await options.persist(rows);
      } catch (error) {
        if (CtxloomError.is(error)) throw error;
        throw new CtxloomError({
          code: 'storage-error',
          message: 'could not store memory vectors',
          cause: error,
        });
      }
      for (const [position, entry] of pending.entries())
        index.add(entry.id, vectors[position] as Float32Array);
    },
    async search(query, limit, signal) {
      if (query.trim().length === 0 || index.size === 0) return [];
      const [vector] = await embedder.embed([query], signal === undefined ? {} : { signal });
      return vector === undefined ? [] : index.search(vector, { limit });
    },
  };
}

/**
 * {@link createMemoryVectors} in SQLite: vectors as little-endian Float32 BLOBs in
 * `ctxloom_memory_vectors`, one row per agent/session/message, tagged with the model name.
 */
export function createSqliteMemoryVectors(options: {
  database: DatabaseSync;
  agentId: string;
  sessionId: string;
  embedder: Embedder;
}): MemoryVectors {
  const { database, agentId, sessionId, embedder } = options;
  database.exec(`CREATE TABLE IF NOT EXISTS ctxloom_memory_vectors (
    agent_id TEXT NOT NULL, session_id TEXT NOT NULL, id TEXT NOT NULL, model TEXT NOT NULL,
    vector BLOB NOT NULL, PRIMARY KEY (agent_id, session_id, id))`);
  const stored = database
    .prepare(
      'SELECT id, vector FROM ctxloom_memory_vectors WHERE agent_id = ? AND session_id = ? AND model = ?',
    )
    .all(agentId, sessionId, embedder.name) as unknown as StoredVector[];
  const upsert = database.prepare(
    `INSERT INTO ctxloom_memory_vectors (agent_id, session_id, id, model, vector) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (agent_id, session_id, id) DO UPDATE SET model = excluded.model, vector = excluded.vector`,
  );
  return createMemoryVectors({
    embedder,
    stored,
    persist(rows) {
      database.exec('BEGIN');
      try {
        for (const row of rows) upsert.run(agentId, sessionId, row.id, embedder.name, row.vector);
        database.exec('COMMIT');
      } catch (error) {
        database.exec('ROLLBACK');
        throw error;
      }
    },
  });
}
