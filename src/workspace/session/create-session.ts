import { randomUUID } from 'node:crypto';
import { CtxloomError } from '../../core/index.ts';
import type { Workspace } from '../workspace.ts';
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
}

/**
 * Creates a session (seed 003: `Session = { id, concept, createdAt }`, nothing more): its
 * folder with an empty `messages.json` and a default `context-config.json`, and its record
 * appended to `sessions.json` (serialised, atomic). Throws `conflict` when the id exists.
 */
export async function createSession(options: CreateSessionOptions): Promise<SessionRecord> {
  const id = options.id ?? randomUUID();
  if (!sessionRecordSchema.shape.id.safeParse(id).success) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: `invalid session id ${JSON.stringify(id)}`,
      path: 'id',
    });
  }
  const record: SessionRecord = {
    id,
    concept: options.concept,
    createdAt: (options.now?.() ?? new Date()).toISOString(),
  };
  await options.workspace.sandbox.update('sessions.json', (current) => {
    const sessions = current === undefined ? [] : parseSessionsIndex(current);
    if (sessions.some((session) => session.id === id)) {
      throw new CtxloomError({
        code: 'conflict',
        message: `session "${id}" already exists`,
        file: 'sessions.json',
        path: id,
      });
    }
    return `${JSON.stringify([...sessions, record], null, 2)}\n`;
  });
  const sandbox = options.workspace.session(id);
  const folder = options.workspace.sandbox;
  await folder.writeText(`${id}/messages.json`, '[]\n');
  await folder.writeText(
    `${id}/context-config.json`,
    `${JSON.stringify({ version: 1, profileBlocks: [] }, null, 2)}\n`,
  );
  if (!(await sandbox.exists('session-prompt.md')))
    await folder.writeText(`${id}/session-prompt.md`, `${options.concept}\n`);
  return record;
}
