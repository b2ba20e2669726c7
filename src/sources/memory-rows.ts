import type { DatabaseSync } from 'node:sqlite';
import { CtxloomError, type Message } from '../core/index.ts';
import { requireNodeSqlite } from '../llm/require-node-sqlite.ts';
import { ensureFormat } from './format-version.ts';
import type { MemoryEntry } from './memory-entry.ts';

/** Format version of the memory tables (row `memory` of `ctxloom_formats`); newer files are refused. */
export const MEMORY_FORMAT_VERSION = 1;

/** One row of `ctxloom_memory`. */
export interface Row {
  agent_id: string;
  session_id: string;
  seq: number;
  id: string;
  message: string;
  text: string;
  importance: number;
  reasons: string;
  marked: number;
  created_at: number;
}

/**
 * Opens a SQLite file for `feature` (the memory store, the shared pool), mapping failures — a
 * missing folder, a folder, no permission — to `storage-error` naming the file, SQLite's own
 * error as the cause.
 */
export function openDatabase(path: string, feature = 'the memory store'): DatabaseSync {
  const sqlite = requireNodeSqlite({ feature });
  try {
    return new sqlite.DatabaseSync(path);
  } catch (error) {
    throw new CtxloomError({
      code: 'storage-error',
      message: `could not open the database of ${feature}`,
      cause: error,
      file: path,
    });
  }
}

/** Creates the memory table if needed and checks its format version. */
export function migrate(database: DatabaseSync, path: string | undefined): void {
  ensureFormat(database, 'memory', MEMORY_FORMAT_VERSION, path);
  database.exec(`
    CREATE TABLE IF NOT EXISTS ctxloom_memory (
      agent_id TEXT NOT NULL, session_id TEXT NOT NULL, seq INTEGER NOT NULL, id TEXT NOT NULL,
      message TEXT NOT NULL, text TEXT NOT NULL, importance REAL NOT NULL, reasons TEXT NOT NULL,
      marked INTEGER NOT NULL, created_at INTEGER NOT NULL,
      PRIMARY KEY (agent_id, session_id, id)
    );
    CREATE INDEX IF NOT EXISTS ctxloom_memory_order ON ctxloom_memory (agent_id, session_id, seq);
  `);
}

/** A stored row as a {@link MemoryEntry}. */
export function fromRow(row: Row): MemoryEntry {
  return {
    id: row.id,
    agentId: row.agent_id,
    sessionId: row.session_id,
    seq: row.seq,
    message: JSON.parse(row.message) as Message,
    text: row.text,
    importance: row.importance,
    reasons: JSON.parse(row.reasons) as MemoryEntry['reasons'],
    createdAt: row.created_at,
  };
}
