import { resolve } from 'node:path';
import { CtxloomError } from '../core/index.ts';
import { PostgresSaver } from '../runtime/checkpoint/postgres-saver.ts';
import { SqliteSaver } from '../runtime/checkpoint/sqlite-saver.ts';
import type { Workspace } from '../workspace/index.ts';
import { createCheckpointSessionStore } from './checkpoint-session-store.ts';
import { createFileSessionStore } from './file-session-store.ts';
import { createPostgresThreadLock } from './postgres-thread-lock.ts';
import type { SessionStore } from './session-store.ts';
import { createLeaseThreadLock } from './thread-lock.ts';

/** A parsed store spec (see {@link parseSessionStoreSpec}). */
export type SessionStoreSpec =
  | { kind: 'files' }
  | { kind: 'sqlite'; path: string }
  | { kind: 'postgres'; connectionString: string; schema: string };

/** A session store opened from a spec, with the resources it holds. */
export interface OpenedSessionStore extends SessionStore {
  /** Closes the database connections (nothing for `files`). */
  close(): Promise<void>;
}

/** Options of {@link openSessionStore}. */
export interface OpenSessionStoreOptions {
  /** The workspace the `files` store keeps sessions in. */
  workspace: Workspace;
  /** Base of a relative `sqlite:` path. Default `process.cwd()`. */
  cwd?: string;
}

const SCHEMA = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/u;

/**
 * Parses a session store spec: `files` (or nothing: the default), `sqlite:<path>` (a
 * database file, relative paths from `cwd`), or a PostgreSQL URL `postgres://…` /
 * `postgresql://…` with an optional `schema=<name>` query parameter (default `public`).
 * Anything else is `invalid-argument` naming `store`. Pure: opens nothing.
 * @example parseSessionStoreSpec('sqlite:.ctxloom/sessions.db') // { kind: 'sqlite', path: '/cwd/.ctxloom/sessions.db' }
 */
export function parseSessionStoreSpec(
  spec: string | undefined,
  options: { cwd?: string } = {},
): SessionStoreSpec {
  const text = spec?.trim() ?? '';
  if (text === '' || text === 'files') return { kind: 'files' };
  if (text.startsWith('sqlite:')) {
    const path = text.slice('sqlite:'.length);
    if (path === '' || path.includes('\u0000'))
      throw invalid(spec ?? '', 'no database file path after "sqlite:"', 'invalid');
    return { kind: 'sqlite', path: path === ':memory:' ? path : resolve(options.cwd ?? process.cwd(), path) };
  }
  if (/^postgres(?:ql)?:\/\//u.test(text)) {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw invalid(redact(text), 'not a valid PostgreSQL URL', 'invalid');
    }
    const schema = url.searchParams.get('schema') ?? 'public';
    if (!SCHEMA.test(schema)) {
      throw invalid(
        redact(text),
        `schema must be a plain SQL identifier (letters, digits, _), got "${schema}"`,
        'invalid',
      );
    }
    url.searchParams.delete('schema');
    return { kind: 'postgres', connectionString: url.toString(), schema };
  }
  throw invalid(redact(text), 'use files, sqlite:<path> or postgres://…', 'unknown');
}

/**
 * Opens the session store a spec (text or parsed, see {@link parseSessionStoreSpec}) names: the workspace-files
 * adapter, or the checkpoint adapter on a `SqliteSaver` (one process per file) or a
 * `PostgresSaver` with the advisory thread lock (many processes on one database).
 * @example const store = await openSessionStore('sqlite:sessions.db', { workspace });
 */
export async function openSessionStore(
  spec: string | SessionStoreSpec | undefined,
  options: OpenSessionStoreOptions,
): Promise<OpenedSessionStore> {
  const parsed =
    typeof spec === 'object'
      ? spec
      : parseSessionStoreSpec(spec, options.cwd === undefined ? {} : { cwd: options.cwd });
  switch (parsed.kind) {
    case 'files':
      return { ...createFileSessionStore({ workspace: options.workspace }), close: async () => {} };
    case 'sqlite': {
      const saver = new SqliteSaver({ path: parsed.path });
      await saver.setup();
      // Two processes (two CLI turns, a CLI turn beside a server) may open one file: each write
      // holds the thread across processes, or both would read one head and one write be lost.
      const store = createCheckpointSessionStore({
        saver,
        kind: 'sqlite',
        lock: createLeaseThreadLock(saver),
        // A turn, too, holds the thread across processes, so two turns never interleave.
        turnLock: createLeaseThreadLock(saver, { name: 'ctxloom-session-turn' }),
      });
      return {
        ...store,
        async close() {
          await store.close();
          await saver.close();
        },
      };
    }
    case 'postgres': {
      const saver = new PostgresSaver({ connectionString: parsed.connectionString, schema: parsed.schema });
      const lock = createPostgresThreadLock({
        connectionString: parsed.connectionString,
        scope: parsed.schema,
      });
      const store = createCheckpointSessionStore({
        saver,
        kind: 'postgres',
        lock,
        // A turn holds the thread across processes in a row, not on a connection: a turn lasts as
        // long as the model's answer, and turns waiting for it must not take the pool's connections.
        turnLock: createLeaseThreadLock(
          { acquireThread: (lease) => saver.acquireRowLease(lease) },
          { name: 'ctxloom-session-turn' },
        ),
      });
      try {
        await saver.setup();
      } catch (error) {
        await store.close();
        await saver.close();
        throw error;
      }
      return {
        ...store,
        async close() {
          await store.close();
          await saver.close();
        },
      };
    }
  }
}

/** A URL with its password replaced, for error messages. */
function redact(text: string): string {
  return text.replace(/\/\/([^:/@]*):[^@/]*@/u, '//$1:***@');
}

/** `unknown` for a kind this does not know, `invalid` for a bad value of a known kind. */
function invalid(spec: string, why: string, what: 'unknown' | 'invalid'): CtxloomError {
  return new CtxloomError({
    code: 'invalid-argument',
    message: `${what} session store "${spec}": ${why}`,
    path: 'store',
  });
}
