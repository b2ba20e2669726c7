import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createOfflineModel } from '../llm/index.ts';
import type { SessionStore } from '../session/index.ts';
import { openWorkspace, type Workspace } from '../workspace/index.ts';
import { createNotebookApp, type NotebookAppOptions } from './create-notebook-app.ts';

/** The notebook example, copied into a fresh temp folder. */
export const EXAMPLE_ROOT = fileURLToPath(new URL('../../examples/notebook', import.meta.url));

/**
 * A copy of `examples/notebook` in a temp folder, with an app over it and a cleanup.
 * `storeOf` builds the app's session store over the copy's workspace (default: the files store).
 */
export async function createTestNotebook(
  options: Partial<NotebookAppOptions> = {},
  storeOf?: (workspace: Workspace) => SessionStore,
) {
  const root = await mkdtemp(join(tmpdir(), 'ctxloom-notebook-'));
  await cp(EXAMPLE_ROOT, root, { recursive: true });
  const workspace = openWorkspace({ root });
  let next = 0;
  const app = createNotebookApp({
    workspace,
    model: { model: createOfflineModel(), spec: 'offline', offline: true },
    now: () => new Date('2026-03-01T10:00:00.000Z'),
    createId: () => `id-${++next}`,
    ...(storeOf === undefined ? {} : { store: storeOf(workspace) }),
    ...options,
  });
  return { root, workspace, app, cleanup: () => rm(root, { recursive: true, force: true }) };
}
