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
});
