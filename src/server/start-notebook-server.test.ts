import { readFile } from 'node:fs/promises';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CtxloomError } from '../core/index.ts';
import { createOfflineModel } from '../llm/index.ts';
import { isLoopbackHost, startNotebookServer } from './start-notebook-server.ts';
import { createTestNotebook } from './test-workspace.test-support.ts';

const model = { model: createOfflineModel(), spec: 'offline', offline: true };
const ipv6Loopback = await canListenOn('::1');

describe('startNotebookServer', () => {
  it('tells loopback hosts from the rest', () => {
    expect(['127.0.0.1', '127.3.2.1', '::1', 'localhost'].map(isLoopbackHost)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(['0.0.0.0', '192.168.1.5', '::', 'example.com'].map(isLoopbackHost)).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });

  it('refuses a non-loopback host without a token', async () => {
    const { workspace, cleanup } = await createTestNotebook();
    try {
      const error = await startNotebookServer({ workspace, model, host: '0.0.0.0', port: 0 }).catch(
        (e: unknown) => e,
      );
      expect(CtxloomError.is(error, 'unauthorized')).toBe(true);
    } finally {
      await cleanup();
    }
  });

  it('a port in use, an address not on this machine or an unknown host is a typed error naming host and port', async () => {
    const { workspace, cleanup } = await createTestNotebook();
    const taken = createServer();
    await new Promise<void>((done) => taken.listen(0, '127.0.0.1', done));
    const port = (taken.address() as AddressInfo).port;
    try {
      const fail = (host: string, at: number) =>
        startNotebookServer({ workspace, model, host, port: at, token: 't' }).then(
          () => expect.fail(`listening on ${host}:${at} did not fail`),
          (error: unknown) => error as CtxloomError,
        );
      const inUse = await fail('127.0.0.1', port);
      expect(CtxloomError.is(inUse, 'conflict')).toBe(true);
      expect(inUse.message).toBe(`cannot listen on 127.0.0.1:${port}: the port is already in use (at port)`);
      expect(inUse.details).toMatchObject({ reason: 'port-in-use', host: '127.0.0.1', port });
      expect((inUse.cause as NodeJS.ErrnoException).code).toBe('EADDRINUSE');

      // 192.0.2.0/24 is TEST-NET-1: never an address of this machine.
      const elsewhere = await fail('192.0.2.1', 0);
      expect(CtxloomError.is(elsewhere, 'invalid-argument')).toBe(true);
      expect(elsewhere.message).toBe(
        "cannot listen on 192.0.2.1:0: the address is not one of this machine's (at host)",
      );
      expect(elsewhere.details).toMatchObject({ reason: 'address-not-available' });

      // `.invalid` never resolves (RFC 2606); a resolver that does not answer is EAI_AGAIN, also host-not-found.
      const unknown = await fail('no.such.host.invalid', 0);
      expect(CtxloomError.is(unknown, 'not-found')).toBe(true);
      expect(unknown.message).toMatch(/^cannot listen on no\.such\.host\.invalid:0: the host name /u);
      expect(unknown.details).toMatchObject({ reason: 'host-not-found', host: 'no.such.host.invalid' });
    } finally {
      await new Promise((done) => taken.close(done));
      await cleanup();
    }
  });

  it.runIf(ipv6Loopback)('listens on an IPv6 host given in brackets, as a URL spells it', async () => {
    const { workspace, cleanup } = await createTestNotebook();
    const server = await startNotebookServer({ workspace, model, host: '[::1]', port: 0, token: 'six' });
    try {
      expect(server.url).toBe(`http://[::1]:${server.port}`);
      const response = await fetch(`${server.url}/api/sessions`, {
        headers: { Authorization: 'Bearer six' },
      });
      expect(response.status).toBe(200);
    } finally {
      await server.close();
      await cleanup();
    }
  });

  it('serves the API over HTTP on loopback and requires the token when one is set', async () => {
    const { workspace, cleanup } = await createTestNotebook();
    const server = await startNotebookServer({ workspace, model, port: 0, token: 'abc' });
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/u);
      expect((await fetch(`${server.url}/api/sessions`)).status).toBe(401);
      const response = await fetch(`${server.url}/api/sessions`, {
        headers: { Authorization: 'Bearer abc' },
      });
      expect(((await response.json()) as { sessions: unknown[] }).sessions).toHaveLength(1);
    } finally {
      await server.close();
      await cleanup();
    }
  });

  it('makes a per-run token on loopback: the printed URL sets the cookie the UI then sends', async () => {
    const { workspace, cleanup } = await createTestNotebook();
    const server = await startNotebookServer({ workspace, model, port: 0 });
    try {
      expect(server.token.length).toBeGreaterThanOrEqual(32);
      expect(server.browserUrl).toBe(`${server.url}/?token=${server.token}`);
      expect((await fetch(`${server.url}/api/sessions`)).status).toBe(401);
      const opened = await fetch(server.browserUrl, { redirect: 'manual' });
      expect(opened.status).toBe(302);
      const cookie = (opened.headers.get('Set-Cookie') ?? '').split(';')[0] as string;
      expect((await fetch(`${server.url}/api/sessions`, { headers: { Cookie: cookie } })).status).toBe(200);
      // DNS rebinding: the right address under a foreign name is refused, even with the cookie.
      const rebound = await new Promise<number | undefined>((resolve, reject) => {
        const call = request(
          `${server.url}/api/sessions`,
          { headers: { Cookie: cookie, Host: `attacker.example:${server.port}` } },
          (response) => {
            response.resume();
            resolve(response.statusCode);
          },
        );
        call.once('error', reject);
        call.end();
      });
      expect(rebound).toBe(403);
    } finally {
      await server.close();
      await cleanup();
    }
  });
});

/** True when this machine can listen on `host` (IPv6 loopback may be off). */
function canListenOn(host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(0, host, () => probe.close(() => resolve(true)));
  });
}

/** One HTTP request with the path sent byte for byte (fetch and URL would normalise it). */
function rawRequest(options: {
  port: number;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const call = request(
      {
        host: '127.0.0.1',
        port: options.port,
        method: options.method,
        path: options.path,
        headers: {
          ...(options.body === undefined
            ? {}
            : { 'Content-Length': String(Buffer.byteLength(options.body)) }),
          ...options.headers,
        },
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          body += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    call.once('error', reject);
    call.end(options.body);
  });
}

describe('startNotebookServer: requests the Node adapter refuses', () => {
  it('answers them with the JSON error body, naming Host when that is what is wrong', async () => {
    const { workspace, cleanup } = await createTestNotebook();
    const server = await startNotebookServer({ workspace, model, port: 0, token: 'adapter' });
    const send = (path: string, host: string) =>
      rawRequest({
        port: server.port,
        method: 'GET',
        path,
        headers: { Host: host, Authorization: 'Bearer adapter' },
      });
    try {
      for (const [path, host, error] of [
        ['/api/sessions', '[::ffff:127.0.0.1]', { code: 'invalid-argument', path: 'Host' }],
        ['/api\\sessions', '127.0.0.1', { code: 'invalid-argument' }],
        ['/api/sessions', '127.999.999.999', { code: 'invalid-argument', path: 'Host' }],
      ] as const) {
        const response = await send(path, host);
        expect(response.status, `${host} ${path}`).toBe(400);
        expect((JSON.parse(response.body) as { error: unknown }).error, `${host} ${path}`).toMatchObject(
          error,
        );
      }
      expect((await send('/api/sessions', `127.0.0.1:${server.port}`)).status).toBe(200);
    } finally {
      await server.close();
      await cleanup();
    }
  });
});

describe('startNotebookServer: the token whatever the spelling of the path', () => {
  it.each([
    ['loopback', '127.0.0.1'],
    ['every interface (--host 0.0.0.0)', '0.0.0.0'],
  ])('on %s, needs the token on every spelling of an /api path', async (_name, host) => {
    const { root, workspace, cleanup } = await createTestNotebook();
    const server = await startNotebookServer({ workspace, model, host, port: 0, token: 'net-token-42' });
    const send = (method: string, path: string, token: boolean, body?: string) =>
      rawRequest({
        port: server.port,
        method,
        path,
        headers: {
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
          ...(token ? { Authorization: 'Bearer net-token-42' } : {}),
        },
        ...(body === undefined ? {} : { body }),
      });
    const written = () => readFile(join(root, 'raft-consensus', 'x.md'), 'utf8').catch(() => null);
    const ids = async () =>
      (JSON.parse(await readFile(join(root, 'sessions.json'), 'utf8')) as { id: string }[]).length;
    try {
      for (const path of [
        '/%61pi/sessions',
        '/a%70i/sessions',
        '/%41PI/sessions',
        '//api/sessions',
        '/./api/sessions',
        '/x/../api/sessions',
        '/%2e/api/sessions',
        '/x/%2e%2e/api/sessions',
        '/api%2Fsessions',
      ]) {
        expect({ path, status: (await send('GET', path, false)).status }).toEqual({ path, status: 401 });
      }
      expect((await send('GET', '/%61pi/sessions', true)).status).toBe(200);
      expect((await send('GET', '/x/%2e%2e/api/sessions', true)).status).toBe(200);

      const file = JSON.stringify({ text: '# pwned\n' });
      expect((await send('PUT', '/%61pi/sessions/raft-consensus/files/x.md', false, file)).status).toBe(401);
      expect(await written()).toBeNull();
      expect((await send('PUT', '/%61pi/sessions/raft-consensus/files/x.md', true, file)).status).toBe(200);
      expect(await written()).toBe('# pwned\n');

      const session = JSON.stringify({ concept: 'attack' });
      expect((await send('POST', '/a%70i/sessions', false, session)).status).toBe(401);
      expect(await ids()).toBe(1);
      expect((await send('POST', '/a%70i/sessions', true, session)).status).toBe(201);
      expect(await ids()).toBe(2);
    } finally {
      await server.close();
      await cleanup();
    }
  });
});
