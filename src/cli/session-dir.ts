import { stat } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { CtxloomError } from '../core/index.ts';
import { openWorkspace, type Workspace } from '../workspace/workspace.ts';

/**
 * Opens the workspace that holds a session folder: the folder's parent is the workspace,
 * its name the session id. Throws `not-found` naming the folder when it does not exist, and
 * `invalid-argument` when it is a file (a session's `messages.json` typed for its folder).
 */
export async function openSessionDir(
  dir: string,
  cwd: string,
): Promise<{ workspace: Workspace; sessionId: string }> {
  const absolute = resolve(cwd, dir);
  const info = await stat(absolute).catch(() => undefined);
  if (info === undefined) {
    throw new CtxloomError({ code: 'not-found', message: 'session folder does not exist', file: dir });
  }
  if (!info.isDirectory()) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: 'the session is a file, not a folder: give the folder that holds messages.json',
      file: dir,
    });
  }
  return { workspace: openWorkspace({ root: dirname(absolute) }), sessionId: basename(absolute) };
}

/**
 * Refuses a workspace folder that is missing (`not-found`) or a file (`invalid-argument`)
 * before a server starts on it, naming it as the user typed it (`shown`): otherwise `serve`
 * would start and answer every request with a 404. `mcp` and `serve` both check this first.
 */
export async function assertWorkspaceFolder(absolute: string, shown: string): Promise<void> {
  const info = await stat(absolute).catch(() => undefined);
  if (info === undefined) {
    throw new CtxloomError({ code: 'not-found', message: 'workspace folder does not exist', file: shown });
  }
  if (!info.isDirectory()) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: 'the workspace is a file, not a folder',
      file: shown,
    });
  }
}
