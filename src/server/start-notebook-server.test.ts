import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { CtxloomError } from '../core/index.ts';
import { createOfflineModel } from '../llm/index.ts';
import { isLoopbackHost, startNotebookServer } from './start-notebook-server.ts';
import { createTestNotebook } from './test-workspace.test-support.ts';

const model = { model: createOfflineModel(), spec: 'offline', offline: true };

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
