import { resolveModel } from '../llm/index.ts';
import { createChatTools } from '../server/create-chat-tools.ts';
import { createFileSessionStore, createSessionEngine, type SessionEngine } from '../session/index.ts';
import type { Workspace } from '../workspace/index.ts';
import { openSessionDir } from './session-dir.ts';

/**
 * The session engine for a session folder given on the command line: its workspace (the
 * folder's parent), the files store, and the `CTXLOOM_MODEL` model (offline by default) with
 * the workspace tools — the same engine the notebook server runs.
 */
export async function openSessionEngine(
  dir: string,
  cwd: string,
  env: Record<string, string | undefined> = process.env,
): Promise<{ engine: SessionEngine; workspace: Workspace; sessionId: string }> {
  const { workspace, sessionId } = await openSessionDir(dir, cwd);
  const resolved = resolveModel(env.CTXLOOM_MODEL, env);
  const now = () => new Date();
  const createId = () => crypto.randomUUID();
  const engine = createSessionEngine({
    workspace,
    store: createFileSessionStore({ workspace }),
    model: resolved,
    tools: (id) => createChatTools({ workspace, now, createId }, id),
    now,
    createId,
  });
  return { engine, workspace, sessionId };
}
