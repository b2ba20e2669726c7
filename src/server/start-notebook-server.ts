import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname, networkInterfaces } from 'node:os';
import { getRequestListener, RequestError } from '@hono/node-server';
import { CtxloomError, type CtxloomErrorCode } from '../core/index.ts';
import { createNotebookApp, type NotebookAppOptions } from './create-notebook-app.ts';
import { toErrorResponse } from './error-response.ts';

/** Default port of `ctxloom serve`. */
export const DEFAULT_PORT = 4317;
/** Default host: loopback only. */
export const DEFAULT_HOST = '127.0.0.1';

/** Options of {@link startNotebookServer}. */
export interface StartNotebookServerOptions extends Omit<NotebookAppOptions, 'token'> {
  /** Interface to bind. Default {@link DEFAULT_HOST}; anything but loopback needs `token`. */
  host?: string;
  /** TCP port (0 = any free port). Default {@link DEFAULT_PORT}. */
  port?: number;
  /**
   * The token (`CTXLOOM_TOKEN`); required for a non-loopback host. On loopback a fresh random
   * one is made per run when none is given, as Jupyter does: the printed {@link
   * NotebookServer.browserUrl} carries it and sets an `HttpOnly; SameSite=Strict` cookie.
   */
  token?: string;
}

/** A running notebook server. */
export interface NotebookServer {
  /** `http://host:port` as bound. */
  url: string;
  /** The URL to open in a browser: `url` + `/?token=…` (sets the token cookie). */
  browserUrl: string;
  /** The token every `/api` request needs (bearer header or cookie). */
  token: string;
  port: number;
  close(): Promise<void>;
}

/** True for `127.0.0.1`, `::1`, `localhost` and the rest of 127.0.0.0/8. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127(?:\.\d{1,3}){3}$/u.test(host);
}

/**
 * The host names a request to a server bound to `host` may carry: the host itself, and for a
 * wildcard bind (`0.0.0.0`, `::`) this machine's name and interface addresses.
 */
export function boundHostNames(host: string): string[] {
  if (host !== '0.0.0.0' && host !== '::' && host !== '[::]') return [host];
  const addresses = Object.values(networkInterfaces())
    .flatMap((entries) => entries ?? [])
    .map((entry) => (entry.family === 'IPv6' ? `[${entry.address}]` : entry.address));
  return [hostname(), ...addresses];
}

/**
 * Serves the notebook on Node (`@hono/node-server`). Refuses (`unauthorized`) to bind a
 * non-loopback host without a token, since the API reads and writes the workspace; on
 * loopback it makes a per-run token. `Host` and `Origin` must name loopback, the bound host
 * or `allowedHosts` (docs/security.md).
 */
export async function startNotebookServer(options: StartNotebookServerOptions): Promise<NotebookServer> {
  const host = options.host ?? DEFAULT_HOST;
  const token = options.token === '' ? undefined : options.token;
  if (!isLoopbackHost(host) && token === undefined) {
    throw new CtxloomError({
      code: 'unauthorized',
      message: `refusing to listen on ${host} without CTXLOOM_TOKEN: set it, then clients send Authorization: Bearer <token>`,
      path: 'host',
    });
  }
  const runToken = token ?? randomBytes(24).toString('base64url');
  const app = createNotebookApp({
    ...options,
    token: runToken,
    allowedHosts: [...boundHostNames(host), ...(options.allowedHosts ?? [])],
  });
  // `[::1]` is how a URL spells the address; listen() takes it bare ("host name was not found").
  const address = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  const shown = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  // Not `serve()`: it passes no error handler, and a request the adapter refuses (a Host it
  // cannot parse, a backslash in the path) got a 400 with an empty body.
  const server = createServer(
    getRequestListener(app.fetch, { hostname: shown, errorHandler: adapterErrorResponse }),
  );
  return new Promise((resolve, reject) => {
    server.once('error', (error: unknown) => reject(listenError(error, host, options.port ?? DEFAULT_PORT)));
    server.listen(options.port ?? DEFAULT_PORT, address, () => {
      const { port } = server.address() as AddressInfo;
      const url = `http://${shown}:${port}`;
      resolve({
        url,
        browserUrl: `${url}/?token=${encodeURIComponent(runToken)}`,
        token: runToken,
        port,
        close: () =>
          new Promise((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

/** Why the Node adapter refuses a request (its `RequestError` messages), as the error to answer. */
const REQUEST_ERRORS: Record<string, { message: string; path?: string }> = {
  'Invalid host header': { message: 'invalid Host header: not a host name or address', path: 'Host' },
  'Missing host header': { message: 'the request has no Host header', path: 'Host' },
  'Backslash in request path': { message: 'the request path has a backslash' },
};

/**
 * The JSON error response of a request the Node adapter refuses before the app sees it
 * (`RequestError`: 400 `invalid-argument`, naming `Host` when that is what is wrong), and of
 * anything else it catches (500 `internal`, through {@link toErrorResponse}).
 */
function adapterErrorResponse(error: unknown): Response {
  if (!(error instanceof RequestError)) return toErrorResponse(error);
  const known = REQUEST_ERRORS[error.message] ?? {
    message: 'malformed request: the URL or Host cannot be read',
  };
  return toErrorResponse(
    new CtxloomError({
      code: 'invalid-argument',
      message: known.message,
      ...(known.path === undefined ? {} : { path: known.path }),
      cause: error,
    }),
  );
}

/** Why a server cannot listen, in words, by the Node error code; the code for each. */
const LISTEN_ERRORS: Record<string, { code: CtxloomErrorCode; reason: string; why: string; path: string }> = {
  EADDRINUSE: { code: 'conflict', reason: 'port-in-use', why: 'the port is already in use', path: 'port' },
  EACCES: {
    code: 'invalid-argument',
    reason: 'permission-denied',
    why: 'permission denied (ports below 1024 need privileges)',
    path: 'port',
  },
  EADDRNOTAVAIL: {
    code: 'invalid-argument',
    reason: 'address-not-available',
    why: "the address is not one of this machine's",
    path: 'host',
  },
  ENOTFOUND: {
    code: 'not-found',
    reason: 'host-not-found',
    why: 'the host name was not found',
    path: 'host',
  },
  EAI_AGAIN: {
    code: 'not-found',
    reason: 'host-not-found',
    why: 'the host name could not be resolved (DNS did not answer)',
    path: 'host',
  },
};

/**
 * A failed `listen` as a {@link CtxloomError} naming the host and port that were asked for
 * (`details.reason`: `port-in-use`, `address-not-available`, `host-not-found`, …), with Node's
 * error as `cause`. An error without a Node code (a bug) is returned unchanged.
 */
function listenError(error: unknown, host: string, port: number): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !/^E[A-Z_]+$/u.test(code)) return error;
  const known = LISTEN_ERRORS[code] ?? {
    code: 'invalid-argument' as const,
    reason: 'other',
    why: `the system refused (${code})`,
    path: 'host',
  };
  const shown = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return new CtxloomError({
    code: known.code,
    message: `cannot listen on ${shown}:${port}: ${known.why}`,
    path: known.path,
    details: { reason: known.reason, host, port, errno: code },
    cause: error,
  });
}
