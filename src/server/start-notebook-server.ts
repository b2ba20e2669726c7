import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { CtxloomError } from '../core/index.ts';
import { createNotebookApp, type NotebookAppOptions } from './create-notebook-app.ts';

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
  /** Bearer token (`CTXLOOM_TOKEN`); required for a non-loopback host, optional otherwise. */
  token?: string;
}

/** A running notebook server. */
export interface NotebookServer {
  /** `http://host:port` as bound. */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** True for `127.0.0.1`, `::1`, `localhost` and the rest of 127.0.0.0/8. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127(?:\.\d{1,3}){3}$/u.test(host);
}

/**
 * Serves the notebook on Node (`@hono/node-server`). Refuses (`unauthorized`) to bind a
 * non-loopback host without a token, since the API reads and writes the workspace.
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
  const app = createNotebookApp({ ...options, ...(token === undefined ? {} : { token }) });
  return new Promise((resolve, reject) => {
    const server = serve(
      { fetch: app.fetch, hostname: host, port: options.port ?? DEFAULT_PORT },
      (info: AddressInfo) => {
        const shown = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
        resolve({
          url: `http://${shown}:${info.port}`,
          port: info.port,
          close: () =>
            new Promise((done) => {
              server.close(() => done());
              if ('closeAllConnections' in server) server.closeAllConnections();
            }),
        });
      },
    );
    server.once('error', reject);
  });
}
