import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { CtxloomError } from '../../core/index.ts';
import { shorten } from '../../core/shorten.ts';
import { validateRelativePath } from '../sandbox/index.ts';
import type { Workspace } from '../workspace.ts';
import { foldName } from './reserved-files.ts';
import { parseSessionsIndex, type SessionRecord, sessionRecordSchema } from './sessions-index.ts';

/** Options of {@link createSession}. */
export interface CreateSessionOptions {
  workspace: Workspace;
  /** What the session is about, e.g. `Raft 共识算法`. */
  concept: string;
  /** Session id (letters, digits, `.`, `_`, `-`); default a random UUID. */
  id?: string;
  /** Clock, injectable for tests. */
  now?: () => Date;
  /**
   * The session folder's first files, by path inside it. Default: an empty `messages.json`, a
   * `context-config.json` with no profile blocks and a `session-prompt.md` holding `concept`.
   */
  files?: Record<string, string>;
}

/** Names Windows gives to devices, with any extension: no folder of a workspace there can have them. */
const DEVICE_NAME = /^(con|prn|aux|nul|com[1-9]|lpt[1-9])(\..*)?$/iu;

/**
 * Creates a session (seed 003: `Session = { id, concept, createdAt }`, nothing more): its
 * folder with `files`, then its record in `sessions.json` (serialised, atomic). Throws
 * `conflict`, before writing anything, when the id is taken — by a record whose id is the same
 * folder on a case-insensitive file system (`Raft` beside `raft`, `raft.` on Windows), or by a
 * folder of that name already in the workspace (its files are not overwritten) — and
 * `invalid-argument` for an id that is not a session id or that Windows reserves (`con`,
 * `nul.txt`, …) or a file path that would leave the folder. When a file cannot be written (a
 * full disk), the folder is removed and no record is written.
 */
export async function createSession(options: CreateSessionOptions): Promise<SessionRecord> {
  const { workspace } = options;
  const id = options.id ?? randomUUID();
  const device = DEVICE_NAME.test(id);
  if (device || !sessionRecordSchema.shape.id.safeParse(id).success) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: `invalid session id ${JSON.stringify(shorten(id))}${device ? ': a name Windows reserves for a device' : ''}`,
      path: 'id',
    });
  }
  const files = options.files ?? {
    'messages.json': '[]\n',
    'context-config.json': `${JSON.stringify({ version: 1, profileBlocks: [] }, null, 2)}\n`,
    'session-prompt.md': `${options.concept}\n`,
  };
  // Every path checked before anything is written.
  for (const path of Object.keys(files)) validateRelativePath(`${id}/${path}`);
  const record: SessionRecord = {
    id,
    concept: options.concept,
    createdAt: (options.now?.() ?? new Date()).toISOString(),
  };
  const folded = foldId(id);
  // The folder is written while the index is held, before its record: a listed session always
  // has its folder, and a crash in between leaves at most a folder no record names.
  await workspace.sandbox.update('sessions.json', async (current) => {
    const sessions = current === undefined ? [] : parseSessionsIndex(current);
    const taken = sessions.find((session) => foldId(session.id) === folded);
    if (taken !== undefined || (await workspace.sandbox.exists(id))) {
      throw new CtxloomError({
        code: 'conflict',
        message:
          taken === undefined
            ? `a file or folder "${id}" already exists in the workspace`
            : taken.id === id
              ? `session "${id}" already exists`
              : `session "${taken.id}" already exists (the same folder as "${id}" where names ignore case)`,
        file: 'sessions.json',
        path: id,
      });
    }
    try {
      for (const [path, text] of Object.entries(files)) {
        await workspace.sandbox.writeText(`${id}/${path}`, text);
      }
    } catch (error) {
      // The folder (which did not exist) is removed; the write's error is the one thrown.
      await removeFolder(workspace, id).catch(() => undefined);
      throw error;
    }
    return `${JSON.stringify([...sessions, record], null, 2)}\n`;
  });
  return record;
}

/** Removes the folder of `id`, when a write made it. */
async function removeFolder(workspace: Workspace, id: string): Promise<void> {
  if (await workspace.sandbox.exists(id)) {
    await rm(await workspace.sandbox.resolve(id), { recursive: true, force: true });
  }
}

/** A session id as a case-insensitive (and normalisation-insensitive) file system names its folder. */
function foldId(id: string): string {
  return foldName(id.normalize('NFC'));
}
