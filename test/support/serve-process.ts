import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../src/cli/bin.ts', import.meta.url));

/** A `ctxloom serve` child process, as a user starts it, and what it printed. */
export interface ServeProcess {
  /** `http://127.0.0.1:<port>` as printed. */
  url: string;
  /** The printed URL with the per-run token (opening it sets the token cookie). */
  browserUrl: string;
  /** The per-run token the process printed (clients send `Authorization: Bearer <token>`). */
  token: string;
  /** Everything the process wrote so far (stdout and stderr), for failure messages. */
  output(): string;
  /** `fetch` against the server with the bearer token. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** Sends SIGTERM (the command closes the server and its store) and waits for the exit code. */
  stop(): Promise<number | null>;
}

/** Options of {@link startServeProcess}. */
export interface StartServeProcessOptions {
  /** The workspace folder to serve (in place: pass a copy). */
  workspace: string;
  /** The `--store` spec: `files`, `sqlite:<file>` or a PostgreSQL URL. */
  store: string;
  /** Extra environment; `CTXLOOM_MODEL` is `offline` and `CTXLOOM_TOKEN` unset unless given here. */
  env?: Record<string, string>;
}

/**
 * Starts `node --conditions=ctxloom-source src/cli/bin.ts serve <workspace> --port 0 --store
 * <spec>` in its own process and resolves once it printed its URL and token (docs/security.md:
 * the token of a loopback run is fresh per run and only printed). Rejects with the process's
 * output when it exits first.
 */
export async function startServeProcess(options: StartServeProcessOptions): Promise<ServeProcess> {
  const env: Record<string, string | undefined> = { ...process.env, CTXLOOM_MODEL: 'offline' };
  delete env.CTXLOOM_TOKEN;
  const child: ChildProcess = spawn(
    process.execPath,
    [
      '--conditions=ctxloom-source',
      '--no-warnings',
      BIN,
      'serve',
      options.workspace,
      '--port',
      '0',
      '--store',
      options.store,
    ],
    { env: { ...env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const printed = new Promise<{ url: string; token: string }>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /ctxloom notebook: (http:\/\/[^/\s]+)\/\?token=([\w%-]+)/u.exec(output);
      if (match?.[1] !== undefined && match[2] !== undefined)
        resolve({ url: match[1], token: decodeURIComponent(match[2]) });
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    void exited.then((code) => reject(new Error(`ctxloom serve exited with ${code}:\n${output}`)));
  });
  const { url, token } = await printed;
  return {
    url,
    browserUrl: `${url}/?token=${encodeURIComponent(token)}`,
    token,
    output: () => output,
    fetch: (path, init = {}) =>
      fetch(`${url}${path}`, {
        ...init,
        headers: { Authorization: `Bearer ${token}`, ...(init.headers as Record<string, string>) },
      }),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
