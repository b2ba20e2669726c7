import { existsSync } from 'node:fs';
import { cp, realpath } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { CtxloomError } from '../../core/index.ts';
import { OFFLINE_HINT, resolveModel } from '../../llm/index.ts';
import { ensureWebBuild } from '../../server/ensure-web-build.ts';
import { DEFAULT_HOST, DEFAULT_PORT, startNotebookServer } from '../../server/index.ts';
import { openWorkspace } from '../../workspace/index.ts';
import { isInside } from '../../workspace/sandbox/verified-dir.ts';
import type { CliIo } from '../io.ts';
import { openSessionEngine } from '../open-session-engine.ts';
import { assertWorkspaceFolder } from '../session-dir.ts';
import { describeStore, parseStoreOption } from '../store-option.ts';
import { plainDecimal, usageError } from '../usage-error.ts';

/** Help text of `ctxloom serve`. */
export const SERVE_HELP = `Usage: ctxloom serve <workspace> [options]

Serve the notebook (HTTP API + web UI) over a workspace folder: sessions, files, profile
blocks, the context preview and chat. Files are read and written in place.

Options:
  --host <host>   interface to bind (default ${DEFAULT_HOST}); anything but loopback needs CTXLOOM_TOKEN
  --port <port>   TCP port (default ${DEFAULT_PORT}; 0 = any free port)
  --store <spec>  where sessions are kept: files (default: the workspace folder),
                  sqlite:<file> (LangGraph checkpoints in one SQLite file, one server process)
                  or postgres://…[?schema=<name>] (checkpoints in PostgreSQL; many server processes)
  --copy-to <dir> copy <workspace> to <dir> the first time (if <dir> does not exist yet) and
                  serve the copy, so the original stays untouched (npm start uses .ctxloom/notebook)
  -h, --help      show this help

Environment:
  CTXLOOM_MODEL   offline (default) | openai:<model> | anthropic:<model> | openai-compatible:<baseURL>#<model>
  CTXLOOM_TOKEN   the API token; required for a non-loopback --host (clients send
                  Authorization: Bearer <token>). On loopback a fresh one is made per run: open
                  the printed URL (…/?token=…), which sets it as an HttpOnly cookie
  CTXLOOM_ALLOWED_HOSTS  extra host names accepted in Host/Origin, comma-separated (a reverse
                  proxy's name); loopback and the bound host are always accepted
  CTXLOOM_MODEL_TIMEOUT_MS  longest silence of the model before a turn fails (default 120000)
  CTXLOOM_DEBUG=1 a failed model call prints the provider's full error, not one line
`;

/** `ctxloom serve <workspace>`: runs until SIGINT/SIGTERM. */
export async function runServe(args: string[], io: CliIo, signal?: AbortSignal): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      host: { type: 'string' },
      port: { type: 'string' },
      'copy-to': { type: 'string' },
      store: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.stdout(SERVE_HELP);
    return 0;
  }
  const [dir, ...extra] = positionals;
  if (dir === undefined || extra.length > 0) throw usageError('serve takes exactly one <workspace>');
  const port = values.port === undefined ? DEFAULT_PORT : plainDecimal(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw usageError('--port must be 0..65535', 'port');
  const cwd = io.cwd ?? process.cwd();
  const storeSpec = parseStoreOption(values.store, cwd);
  const source = resolve(cwd, dir);
  const copyTo = values['copy-to'];
  let root = source;
  if (copyTo !== undefined) {
    root = resolve(io.cwd ?? process.cwd(), copyTo);
    if (!existsSync(root)) {
      await assertWorkspaceFolder(source, dir);
      // cp would throw ERR_FS_CP_EINVAL, which reached the user as an internal error.
      if (isInside(await realpath(source), await realPathToBe(root))) {
        throw new CtxloomError({
          code: 'invalid-argument',
          message: '--copy-to must be outside the workspace it copies',
          file: copyTo,
          details: { usage: true },
        });
      }
      await cp(source, root, { recursive: true, errorOnExist: true, force: false });
      io.stderr(`copied ${source} to ${root}; the notebook edits the copy (delete it to start over)\n`);
    } else {
      io.stderr(`serving ${root} (a copy of ${source}; delete it to start over)\n`);
    }
  }
  // A missing workspace is refused here, as `mcp` refuses it, not with a 404 on every request.
  await assertWorkspaceFolder(root, copyTo ?? dir);
  // A bad CTXLOOM_MODEL fails before the web build.
  resolveModel(process.env.CTXLOOM_MODEL, process.env);
  const webRoot = await ensureWebBuild(io.stderr);
  const token = process.env.CTXLOOM_TOKEN;
  const workspace = openWorkspace({ root });
  // The engine `chat` and `mcp` build: same store, model, summariser, proposer and tools.
  const opened = await openSessionEngine({
    workspace,
    cwd,
    ...(values.store === undefined ? {} : { store: values.store }),
    env: process.env,
    stderr: io.stderr,
    errorLines: true,
  });
  const resolved = opened.model;
  const allowedHosts = (process.env.CTXLOOM_ALLOWED_HOSTS ?? '')
    .split(',')
    .map((host) => host.trim())
    .filter((host) => host !== '');
  const server = await startNotebookServer({
    workspace,
    engine: opened.engine,
    subscribeStore: opened.subscribeStore,
    model: resolved,
    ...(values.host === undefined ? {} : { host: values.host }),
    port,
    ...(token === undefined || token === '' ? {} : { token }),
    allowedHosts,
    ...(webRoot === undefined ? {} : { webRoot }),
  }).catch(async (error: unknown) => {
    await opened.close();
    throw error;
  });
  io.stdout(`ctxloom notebook: ${server.browserUrl}\n`);
  io.stdout(`  workspace ${root}\n`);
  io.stdout(`  store     ${describeStore(storeSpec)}\n`);
  io.stdout(`  model     ${resolved.spec}${resolved.offline ? ` — ${OFFLINE_HINT}` : ''}\n`);
  if (webRoot === undefined) io.stdout('  web UI    not built (npm run build:web); the API runs\n');
  await new Promise<void>((done) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      done();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    if (signal?.aborted) stop();
    signal?.addEventListener('abort', stop, { once: true });
  });
  await server.close();
  await opened.close();
  return 0;
}

/** The real path `path` will have once created: its deepest existing folder's real path, then the rest. */
async function realPathToBe(path: string): Promise<string> {
  const missing: string[] = [];
  let at = path;
  for (;;) {
    const real = await realpath(at).catch(() => undefined);
    if (real !== undefined) return join(real, ...missing);
    const parent = dirname(at);
    if (parent === at) return path;
    missing.unshift(basename(at));
    at = parent;
  }
}
