import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { RequirementProposer } from '../compression/index.ts';
import { CtxloomError, type Summarizer } from '../core/index.ts';
import {
  createFileSessionStore,
  createSessionEngine,
  type SessionEngine,
  type SessionEngineOptions,
  type SessionProcess,
  type SessionStore,
} from '../session/index.ts';
import type { Workspace } from '../workspace/index.ts';
import { toErrorResponse } from './error-response.ts';
import { isApiPath } from './guard-path.ts';
import { guardRequests } from './guard-requests.ts';
import type { NotebookContext, NotebookModel } from './notebook-context.ts';
import { observeSessionStore } from './observe-session-store.ts';
import { callRoutes } from './routes/call-routes.ts';
import { chatRoute } from './routes/chat-route.ts';
import { compressRoute } from './routes/compress-route.ts';
import { contextRoutes } from './routes/context-routes.ts';
import { eventsRoute } from './routes/events-route.ts';
import { fileRoutes } from './routes/file-routes.ts';
import { searchRoute } from './routes/search-route.ts';
import { sessionRoutes } from './routes/session-routes.ts';

/** Default request body limit: 2 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 2 * 1024 * 1024;
/** Default most model steps per chat request. */
export const DEFAULT_MAX_STEPS = 5;

/** Options of {@link createNotebookApp}. */
export interface NotebookAppOptions {
  workspace: Workspace;
  /**
   * The session engine to serve, built by the caller (`ctxloom serve` builds it with the CLI's
   * one set-up, `openSessionEngine`, as `chat` and `mcp` do). With it, the engine's own options
   * — `store`, `process`, `summarizer`, `proposer`, `maxSteps`, `modelTimeoutMs`,
   * `onModelError` — are the engine's business: passing one here too is `invalid-config`.
   * Default: an engine built here from those options.
   */
  engine?: SessionEngine;
  /**
   * Follows the engine's stored writes to a session, for the live updates (`observeSessionStore`'s
   * `subscribe`; with `engine` over a checkpoint store). Default: nothing to follow.
   */
  subscribeStore?: NotebookContext['subscribeStore'];
  /** Where sessions are kept. Default: the workspace files (`createFileSessionStore`). */
  store?: SessionStore;
  /** The model the engine answers with (shown by the API; with `engine`, the one it was built with). */
  model: NotebookModel;
  /**
   * Runs every chat turn through this LangGraph process (`store` must be the checkpoint
   * session store it is built over); the preview is the process's `preview`. See
   * `SessionEngineOptions.process`.
   */
  process?: SessionProcess;
  /**
   * When set, every `/api` route requires it: `Authorization: Bearer <token>`, or the
   * `HttpOnly; SameSite=Strict` cookie set by opening a page with `?token=<token>`.
   * `startNotebookServer` always sets one (a fresh one per run unless given).
   */
  token?: string;
  /**
   * Host names accepted in `Host`/`Origin` besides loopback (the bound host, a proxy's
   * name; `'*'` for any). Default none: loopback only.
   */
  allowedHosts?: readonly string[];
  /** Largest request body in bytes (1 KiB..64 MiB). Default {@link DEFAULT_MAX_BODY_BYTES}. */
  maxBodyBytes?: number;
  /** Most model steps per chat request (1..50). Default {@link DEFAULT_MAX_STEPS}. */
  maxSteps?: number;
  /** Longest silence of the model in ms, see `SessionEngineOptions.modelTimeoutMs`. Default 120 000. */
  modelTimeoutMs?: number;
  /** Called for every turn whose model call failed (`SessionEngineOptions.onModelError`). Default: none. */
  onModelError?: SessionEngineOptions['onModelError'];
  /** Chat compiles run at once (1..64); more wait inside their stream. Default 4. */
  maxConcurrentCompiles?: number;
  /** The engine's summariser (automatic compaction and `/compress`); default the model's for a real model, else the extractive one. */
  summarizer?: Summarizer;
  /** Proposer of requirement ops for `/compress`; default the model's (the offline heuristic with the offline model). */
  proposer?: RequirementProposer;
  /** The built web UI (`dist/web`); served at `/` when given and present. */
  webRoot?: string;
  now?: () => Date;
  createId?: () => string;
}

/**
 * The notebook HTTP app (Hono, runtime-neutral routes; test it with `app.request()`):
 * session CRUD, chat as an AI SDK UI message stream, files with ETags, profile blocks, the
 * context manifest, the context preview, compression and curation. Every request
 * passes {@link guardRequests} first (Host/Origin, token, JSON writes; docs/security.md).
 * Every error is mapped to JSON `{ error: { code, message, path?, file? } }` here, in `onError`.
 * @example
 * const app = createNotebookApp({ workspace: openWorkspace({ root }), model: { model, spec: 'offline', offline: true } });
 * const response = await app.request('/api/sessions');
 */
export function createNotebookApp(options: NotebookAppOptions): Hono {
  const maxBodyBytes = clamp(options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES, 1024, 64 * 1024 * 1024);
  const now = options.now ?? (() => new Date());
  const createId = options.createId ?? randomUUID;
  const maxSteps = clamp(options.maxSteps ?? DEFAULT_MAX_STEPS, 1, 50);
  const { engine, subscribeStore } = notebookEngine(options, { maxSteps, now, createId });
  const context: NotebookContext = {
    workspace: options.workspace,
    store: engine.store,
    model: options.model,
    maxSteps,
    maxConcurrentCompiles: clamp(options.maxConcurrentCompiles ?? 4, 1, 64),
    subscribeStore,
    engine,
    now,
    createId,
  };
  const app = new Hono();
  app.onError((error) => toErrorResponse(error));
  app.notFound((c) =>
    toErrorResponse(
      new CtxloomError({ code: 'not-found', message: `no route ${c.req.method} ${c.req.path}` }),
    ),
  );
  app.use(
    '*',
    guardRequests({
      ...(options.token === undefined ? {} : { token: options.token }),
      ...(options.allowedHosts === undefined ? {} : { allowedHosts: options.allowedHosts }),
    }),
  );
  app.use(
    '/api/*',
    bodyLimit({
      maxSize: maxBodyBytes,
      onError: () =>
        toErrorResponse(
          new CtxloomError({ code: 'too-large', message: `request body exceeds ${maxBodyBytes} bytes` }),
        ),
    }),
  );
  app.route('/', sessionRoutes(context));
  app.route('/', chatRoute(context));
  app.route('/', fileRoutes(context));
  app.route('/', contextRoutes(context));
  app.route('/', callRoutes(context));
  app.route('/', compressRoute(context));
  app.route('/', searchRoute(context));
  app.route('/', eventsRoute(context));
  // An /api path no route matched is a JSON 404, never the UI's index.html. The routes match
  // case-sensitively, so /API/sessions is no route: it is judged by the guard's reading of the
  // path (any case, any spelling), not by the router's pattern.
  app.use('*', async (c, next) => {
    if (!isApiPath(c.req.path)) return next();
    return toErrorResponse(
      new CtxloomError({ code: 'not-found', message: `no route ${c.req.method} ${c.req.path}` }),
    );
  });
  const webRoot = options.webRoot;
  if (webRoot !== undefined && existsSync(webRoot)) {
    // The build writes .br and .gz beside each asset (web/precompress.ts): sent as the client accepts.
    app.use('/*', serveStatic({ root: webRoot, precompressed: true }));
    app.get('/*', serveStatic({ root: webRoot, path: 'index.html', precompressed: true }));
  }
  return app;
}

/** The engine given, or one built over the options' store (observed for the live updates). */
function notebookEngine(
  options: NotebookAppOptions,
  defaults: { maxSteps: number; now: () => Date; createId: () => string },
): { engine: SessionEngine; subscribeStore: NotebookContext['subscribeStore'] } {
  if (options.engine !== undefined) {
    const clash = ENGINE_OPTIONS.find((name) => options[name] !== undefined);
    if (clash !== undefined) {
      throw new CtxloomError({
        code: 'invalid-config',
        message: `"${clash}" is an option of the session engine given as "engine": set it where the engine is built`,
        path: clash,
      });
    }
    return { engine: options.engine, subscribeStore: options.subscribeStore ?? (() => () => {}) };
  }
  // Observed, so the live updates (GET …/events) see writes of a store that changes no file.
  const observed = observeSessionStore(
    options.store ?? createFileSessionStore({ workspace: options.workspace }),
  );
  // The engine's default tools are the workspace tools; the model's dismissals go through it.
  const engine = createSessionEngine({
    workspace: options.workspace,
    store: observed.store,
    model: options.model,
    maxSteps: defaults.maxSteps,
    ...(options.modelTimeoutMs === undefined ? {} : { modelTimeoutMs: options.modelTimeoutMs }),
    ...(options.onModelError === undefined ? {} : { onModelError: options.onModelError }),
    ...(options.summarizer === undefined ? {} : { summarizer: options.summarizer }),
    ...(options.proposer === undefined ? {} : { proposer: options.proposer }),
    ...(options.process === undefined ? {} : { process: options.process }),
    now: defaults.now,
    createId: defaults.createId,
  });
  return { engine, subscribeStore: observed.subscribe };
}

/** Options that belong to the engine: refused beside a ready `engine`. */
const ENGINE_OPTIONS = [
  'store',
  'process',
  'summarizer',
  'proposer',
  'maxSteps',
  'modelTimeoutMs',
  'onModelError',
] as const;

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, Math.floor(value)));
}
