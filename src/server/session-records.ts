import { rm } from 'node:fs/promises';
import { CtxloomError } from '../core/index.ts';
import { shorten } from '../core/shorten.ts';
import { parseSessionsIndex, type SessionRecord, type Workspace } from '../workspace/index.ts';

const INDEX_FILE = 'sessions.json';

const indexCache = new WeakMap<Workspace, { key: string; sessions: SessionRecord[] }>();

/**
 * `workspace.listSessions()`, re-read only when `sessions.json` changed (size and mtime), so
 * every request does not re-parse the index.
 */
export async function listSessionsCached(workspace: Workspace): Promise<SessionRecord[]> {
  const info = await workspace.sandbox.stat(INDEX_FILE);
  if (info === undefined) return workspace.listSessions();
  const key = `${info.size}:${info.mtimeMs}`;
  const cached = indexCache.get(workspace);
  if (cached?.key === key) return cached.sessions;
  const sessions = await workspace.listSessions();
  indexCache.set(workspace, { key, sessions });
  return sessions;
}

/** The session record of `sessionId`; throws `not-found` when its folder or entry is missing. */
export async function requireSession(workspace: Workspace, sessionId: string): Promise<SessionRecord> {
  const record = await requireSessionRecord(workspace, sessionId);
  const folder = await workspace.sandbox.stat(sessionId);
  if (folder?.kind !== 'directory') throw noSession(sessionId);
  return record;
}

/**
 * The `sessions.json` entry of `sessionId`, whether or not its folder exists; throws
 * `not-found` when there is none (and `path-escape` for an id that is not a folder name).
 */
export async function requireSessionRecord(workspace: Workspace, sessionId: string): Promise<SessionRecord> {
  workspace.session(sessionId); // validates the id (path-escape for "../x", "a/b", …)
  const record = (await listSessionsCached(workspace)).find((session) => session.id === sessionId);
  if (record === undefined) throw noSession(sessionId);
  return record;
}

function noSession(sessionId: string): CtxloomError {
  return new CtxloomError({
    code: 'not-found',
    message: `no session ${JSON.stringify(shorten(sessionId))}`,
    path: shorten(sessionId),
  });
}

/** Renames a session (changes its `concept`); the id and folder stay. */
export async function renameSessionRecord(
  workspace: Workspace,
  sessionId: string,
  concept: string,
): Promise<SessionRecord> {
  const current = await requireSession(workspace, sessionId);
  const renamed = { ...current, concept };
  await updateIndex(workspace, (sessions) =>
    sessions.map((session) => (session.id === sessionId ? renamed : session)),
  );
  return renamed;
}

/**
 * Deletes a session: its `sessions.json` entry, then its folder (inside the workspace only).
 * An entry whose folder is missing is deleted too (there is no folder to remove), so its id
 * can be created again.
 */
export async function deleteSessionRecord(workspace: Workspace, sessionId: string): Promise<void> {
  await requireSessionRecord(workspace, sessionId);
  await updateIndex(workspace, (sessions) => sessions.filter((session) => session.id !== sessionId));
  if ((await workspace.sandbox.stat(sessionId))?.kind !== 'directory') return;
  const folder = await workspace.sandbox.resolve(sessionId);
  if (folder === (await workspace.sandbox.resolve(''))) {
    throw new CtxloomError({
      code: 'path-escape',
      message: 'refusing to delete the workspace',
      path: sessionId,
    });
  }
  await rm(folder, { recursive: true, force: true });
}

async function updateIndex(
  workspace: Workspace,
  transform: (sessions: SessionRecord[]) => SessionRecord[],
): Promise<void> {
  const initial = await workspace.listSessions();
  await workspace.sandbox.update(INDEX_FILE, (current) => {
    const sessions = current === undefined ? initial : parseSessionsIndex(current, INDEX_FILE);
    return `${JSON.stringify(transform(sessions), null, 2)}\n`;
  });
}
