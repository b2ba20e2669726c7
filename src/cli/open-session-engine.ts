import { resolveModel } from '../llm/index.ts';
import { createSessionEngine, type SessionEngine } from '../session/index.ts';
import { openSessionStore } from '../session/open-session-store.ts';
import type { Workspace } from '../workspace/index.ts';
import { parseStoreOption } from './commands/serve.ts';
import { createModelErrorLog, modelTimeoutFromEnv } from './model-error-log.ts';
import { openSessionDir } from './session-dir.ts';

/** Options of {@link openSessionEngine}. */
export interface OpenSessionEngineOptions {
  /** The `--store` spec: `files` (default), `sqlite:<path>` or a PostgreSQL URL. */
  store?: string;
  env?: Record<string, string | undefined>;
  /** Where a failed model call's full error goes with `CTXLOOM_DEBUG=1` (the command's stderr). */
  stderr?: (text: string) => void;
}

/**
 * The session engine for a session folder given on the command line: its workspace (the
 * folder's parent), the session store of `--store` (the workspace files by default), and the
 * `CTXLOOM_MODEL` model (offline by default) with the workspace tools — the same engine the
 * notebook server runs. `close()` releases the store.
 */
export async function openSessionEngine(
  dir: string,
  cwd: string,
  options: OpenSessionEngineOptions = {},
): Promise<{
  engine: SessionEngine;
  workspace: Workspace;
  sessionId: string;
  /** The `CTXLOOM_MODEL` model the engine calls. */
  model: { spec: string; modelId: string; offline: boolean };
  close: () => Promise<void>;
}> {
  const env = options.env ?? process.env;
  const { workspace, sessionId } = await openSessionDir(dir, cwd);
  const store = await openSessionStore(parseStoreOption(options.store, cwd), { workspace, cwd });
  const resolved = resolveModel(env.CTXLOOM_MODEL, env);
  const now = () => new Date();
  const createId = () => crypto.randomUUID();
  // `ctxloom chat` prints the stream's one-line error; CTXLOOM_DEBUG=1 adds the provider's full error.
  const onModelError = createModelErrorLog({ write: options.stderr ?? (() => {}), env, summary: false });
  const engine = createSessionEngine({
    workspace,
    store,
    model: resolved,
    ...modelTimeoutFromEnv(env),
    ...(onModelError === undefined ? {} : { onModelError }),
    now,
    createId,
  });
  return {
    engine,
    workspace,
    sessionId,
    model: { spec: resolved.spec, modelId: resolved.modelId, offline: resolved.offline },
    close: () => store.close(),
  };
}
