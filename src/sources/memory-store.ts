import type { DatabaseSync } from 'node:sqlite';
import { CtxloomError, type Message, messageParts, partText } from '../core/index.ts';
import type { Analyzer } from '../retrieval/analyzer.ts';
import { type ConversationIndex, createConversationIndex } from '../retrieval/conversation-index.ts';
import type { Embedder } from '../retrieval/embedder.ts';
import type { RecallSource } from '../retrieval/recall-source.ts';
import { type ImportanceScorer, scoreImportance } from './importance-scorer.ts';
import type { MemoryEntry } from './memory-entry.ts';
import { fromRow, migrate, openDatabase, type Row } from './memory-rows.ts';
import { createMemoryVectors } from './memory-vectors.ts';

export type { MemoryEntry } from './memory-entry.ts';
export { MEMORY_FORMAT_VERSION } from './memory-rows.ts';

/** The read side of a memory: what sub-agents (InheritedSource) and sources may use. */
export interface MemoryView {
  readonly agentId: string;
  readonly sessionId: string;
  /** L1: the latest `limit` entries (default the store's `recentLimit`), oldest first. */
  recent(options?: { limit?: number }): MemoryEntry[];
  /** L2: entries at or above the threshold, most important first (ties: newest first). */
  important(options?: { limit?: number }): MemoryEntry[];
  /** Every entry, oldest first. */
  entries(): MemoryEntry[];
  /** L4 as a recall source (conversation index over every entry). */
  recallSource(options?: { name?: string; messageRange?: number }): RecallSource;
}

/** A per-agent, per-session memory persisted in SQLite. */
export interface MemoryStore extends MemoryView {
  /** Appends messages (an id already stored is ignored), scoring and indexing each. */
  append(messages: readonly Message[]): MemoryEntry[];
  /** Explicitly marks (importance 1) or unmarks (back to the scorer's score) an entry. */
  mark(id: string, important: boolean): void;
  /** A read-only view (for a sub-agent). */
  view(): MemoryView;
  close(): void;
}

/** Options of {@link openMemoryStore}. */
export interface MemoryStoreOptions {
  /** SQLite file path, or `:memory:` (default). Ignored when `database` is given. */
  path?: string;
  /** An open `node:sqlite` database to share (its owner closes it). */
  database?: DatabaseSync;
  agentId: string;
  sessionId: string;
  /** Default {@link scoreImportance}. */
  scorer?: ImportanceScorer;
  /** L2 threshold, default 0.6, range 0..1. */
  importantThreshold?: number;
  /** L1 size in messages, default 40, ≥ 1. */
  recentLimit?: number;
  analyzer?: Analyzer;
  /** Neighbouring messages indexed with each (see `createConversationIndex`), default 1. */
  indexContext?: number;
  /** Clock in ms; default `Date.now`. */
  now?: () => number;
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
 * and does not see rows another process appends until it is reopened.
 * @example
 * const memory = openMemoryStore({ path: 'memory.db', agentId: 'tutor', sessionId: 's1' });
 * memory.append(messages);
 * memory.important(); // decisions, requirements, corrections
 */
export function openMemoryStore(options: MemoryStoreOptions): MemoryStore {
  const threshold = options.importantThreshold ?? 0.6;
  const recentLimit = options.recentLimit ?? 40;
  if (!(threshold >= 0 && threshold <= 1)) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: 'importantThreshold must be within 0..1',
      path: 'importantThreshold',
    });
  }
  if (!Number.isInteger(recentLimit) || recentLimit < 1) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: 'recentLimit must be an integer ≥ 1',
      path: 'recentLimit',
    });
  }
  const owned = options.database === undefined;
  const database = options.database ?? openDatabase(options.path ?? ':memory:');
  migrate(database, options.path);
  const { agentId, sessionId } = options;
  const scorer = options.scorer ?? scoreImportance;
  const now = options.now ?? Date.now;

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
  const byId = new Map(entries.map((entry) => [entry.id, entry]));
  const indexOptions = {
    ...(options.analyzer === undefined ? {} : { analyzer: options.analyzer }),
    indexContext: options.indexContext ?? 1,
  };
  const index: ConversationIndex = createConversationIndex(indexOptions);
  const vectors =
    options.embedder === undefined
      ? undefined
      : createMemoryVectors({ database, agentId, sessionId, embedder: options.embedder });
  index.append(entries.map(toConversationEntry));

  const view: MemoryView = {
    agentId,
    sessionId,
    recent(request = {}) {
      const limit = request.limit ?? recentLimit;
      return limit <= 0 ? [] : entries.slice(-limit).map(copy);
    },
    important(request = {}) {
      const important = entries
        .filter((entry) => entry.importance >= threshold)
        .sort((left, right) => right.importance - left.importance || right.seq - left.seq);
      return (request.limit === undefined ? important : important.slice(0, request.limit)).map(copy);
    },
    entries: () => entries.map(copy),
    recallSource(request = {}) {
      const lexical = index.recallSource(request);
      if (vectors === undefined) return lexical;
      const memoryVectors = vectors;
      return {
        name: lexical.name,
        async recall(recall) {
          await memoryVectors.ensure(entries, recall.signal);
          const scores = new Map<string, number>();
          for (const candidate of await lexical.recall(recall))
            scores.set(candidate.id, candidate.vectorScore / 2);
          for (const hit of await memoryVectors.search(recall.query, recall.limit, recall.signal)) {
            scores.set(hit.id, (scores.get(hit.id) ?? 0) + Math.min(1, Math.max(0, hit.score)) / 2);
          }
          return [...scores]
            .sort((left, right) => right[1] - left[1])
            .slice(0, recall.limit)
            .flatMap(([id, score]) => index.candidate(id, score, { name: lexical.name, ...request }) ?? []);
        },
      };
    },
  };

  return {
    ...view,
    append(messages) {
      const added: MemoryEntry[] = [];
      database.exec('BEGIN');
      try {
        for (const message of messages) {
          if (byId.has(message.id)) continue;
          const { score, reasons } = scorer(message);
          const entry: MemoryEntry = {
            id: message.id,
            agentId,
            sessionId,
            seq: entries.length,
            message,
            text: entryText(message),
            importance: score,
            reasons,
            createdAt: now(),
          };
          insert.run(
            agentId,
            sessionId,
            entry.seq,
            entry.id,
            JSON.stringify(message),
            entry.text,
            entry.importance,
            JSON.stringify(reasons),
            entry.createdAt,
          );
          entries.push(entry);
          byId.set(entry.id, entry);
          added.push(entry);
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
      index.append(added.map(toConversationEntry));
      return added.map(copy);
    },
    mark(id, important) {
      const entry = byId.get(id);
      if (entry === undefined)
        throw new CtxloomError({ code: 'not-found', message: `no memory entry "${id}"`, path: id });
      const scored = scorer(entry.message);
      entry.importance = important ? 1 : scored.score;
      entry.reasons = important ? ['marked', ...scored.reasons] : scored.reasons;
      updateMark.run(
        important ? 1 : 0,
        entry.importance,
        JSON.stringify(entry.reasons),
        agentId,
        sessionId,
        id,
      );
    },
    view: () => ({ ...view }),
    close() {
      if (owned) database.close();
    },
  };
}

/** `role: text` with tool calls and results rendered, the text L4 indexes. */
export function entryText(message: Message): string {
  const body = messageParts(message).map(partText).join('\n');
  return `${message.name ?? message.role}: ${body}`;
}

function toConversationEntry(entry: MemoryEntry) {
  return {
    id: entry.id,
    text: entry.text,
    metadata: { messageId: entry.id, role: entry.message.role, seq: entry.seq },
  };
}

function copy(entry: MemoryEntry): MemoryEntry {
  return { ...entry, reasons: [...entry.reasons] };
}
