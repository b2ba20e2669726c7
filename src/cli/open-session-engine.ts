import { resolveModel } from '../llm/index.ts';
import { observeSessionStore } from '../server/observe-session-store.ts';
import {
  createSessionEngine,
  type EngineModel,
  type SessionEngine,
  type SessionStore,
} from '../session/index.ts';
import { openSessionStore, type SessionStoreSpec } from '../session/open-session-store.ts';
import type { Workspace } from '../workspace/index.ts';
import type { SessionChange } from '../workspace/watch-sessions.ts';
import { createModelErrorLog, modelTimeoutFromEnv } from './model-error-log.ts';
import { openSessionDir } from './session-dir.ts';
import { parseStoreOption } from './store-option.ts';

/** Options of {@link openSessionEngine}. */
export interface OpenSessionEngineOptions {
  workspace: Workspace;
  /** Base of a relative `sqlite:` path. */
  cwd: string;
  /** The `--store` spec: `files` (default), `sqlite:<path>` or a PostgreSQL URL. */
  store?: string;
  /** `CTXLOOM_MODEL`, `CTXLOOM_MODEL_TIMEOUT_MS` and `CTXLOOM_DEBUG` are read from here. Default `process.env`. */
  env?: Record<string, string | undefined>;
  /** Where failed model calls are logged (the command's stderr). Default: nowhere. */
  stderr?: (text: string) => void;
  /**
   * Log one line per failed model call (a server, whose clients see only their own turn);
   * false prints only `CTXLOOM_DEBUG`'s detail (`chat` prints the stream's error line). Default false.
   */
  errorLines?: boolean;
}

/** The engine of every `ctxloom` entry point, with what it was built from. */
export interface OpenedSessionEngine {
  engine: SessionEngine;
  /** The engine's store (observed: the notebook's live updates follow its writes). */
  store: SessionStore;
  storeSpec: SessionStoreSpec;
  /** The `CTXLOOM_MODEL` model (offline by default). */
  model: EngineModel;
  /** The provider's id of that model (what a request body names). */
  modelId: string;
  /** Follows this process's stored writes to a session; returns the unsubscribe function. */
  subscribeStore(sessionId: string, listener: (change: SessionChange) => void): () => void;
  /** Releases the store. */
  close(): Promise<void>;
}

/**
 * The one set-up of the session engine for `ctxloom serve`, `chat`, `mcp`, `compile`,
 * `preview`, `curation` and `calls` (issue 28): the session store of `--store` (the workspace
 * files by default), the `CTXLOOM_MODEL` model (offline by default) and the engine's defaults
 * for everything else — the workspace tools, one summariser (the model's for a real model,
 * for automatic compaction and `/compress` alike), the model's requirement proposer, the
 * `CTXLOOM_MODEL_TIMEOUT_MS` timeout. The same session behaves the same from every command.
 */
export async function openSessionEngine(options: OpenSessionEngineOptions): Promise<OpenedSessionEngine> {
  const { workspace, cwd } = options;
  const env = options.env ?? process.env;
  const storeSpec = parseStoreOption(options.store, cwd);
  const model = resolveModel(env.CTXLOOM_MODEL, env);
  const opened = await openSessionStore(storeSpec, { workspace, cwd });
  // Observed, so a notebook over this engine sees writes of a store that changes no file.
  const observed = observeSessionStore(opened);
  const onModelError = createModelErrorLog({
    write: options.stderr ?? (() => {}),
    env,
    summary: options.errorLines ?? false,
  });
  const engine = createSessionEngine({
    workspace,
    store: observed.store,
    model: { model: model.model, spec: model.spec, offline: model.offline },
    ...modelTimeoutFromEnv(env),
    ...(onModelError === undefined ? {} : { onModelError }),
    now: () => new Date(),
    createId: () => crypto.randomUUID(),
  });
  return {
    engine,
    store: observed.store,
    storeSpec,
    model: { model: model.model, spec: model.spec, offline: model.offline },
    modelId: model.modelId,
    subscribeStore: observed.subscribe,
    close: () => opened.close(),
  };
}

/**
 * {@link openSessionEngine} for a session folder given on the command line: its workspace is
 * the folder's parent, its id the folder's name (`not-found` when it does not exist).
 */
export async function openSessionDirEngine(
  dir: string,
  cwd: string,
  options: Omit<OpenSessionEngineOptions, 'workspace' | 'cwd'> = {},
): Promise<OpenedSessionEngine & { workspace: Workspace; sessionId: string }> {
  const { workspace, sessionId } = await openSessionDir(dir, cwd);
  return { ...(await openSessionEngine({ ...options, workspace, cwd })), workspace, sessionId };
}
