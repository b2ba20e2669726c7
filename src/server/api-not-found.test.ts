import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestNotebook } from './test-workspace.test-support.ts';

let webRoot: string;
let open: Awaited<ReturnType<typeof createTestNotebook>>;
let guarded: Awaited<ReturnType<typeof createTestNotebook>>;
const html = '<!doctype html><title>notebook</title>';
const bearer = { Authorization: 'Bearer run-token-123' };

beforeAll(async () => {
  webRoot = await mkdtemp(join(tmpdir(), 'ctxloom-web-'));
  await writeFile(join(webRoot, 'index.html'), html);
  open = await createTestNotebook({ webRoot });
  guarded = await createTestNotebook({ webRoot, token: 'run-token-123' });
});
afterAll(async () => {
  await Promise.all([open.cleanup(), guarded.cleanup()]);
  await rm(webRoot, { recursive: true, force: true });
});

// Paths whose first segment is `api` in some case or spelling, that no route matches.
const misses = [
  '/API/sessions',
  '/Api/calls',
  '/aPi/sessions/raft-consensus',
  '/API',
  '/Api/',
  '/api/sesions',
  '//API/sessions',
  '/api%2Fsessions',
  '/%2561pi/sessions',
];

describe('an /api path no route matches', () => {
  describe.each([
    ['without a token', () => open, {}],
    ['with the token', () => guarded, bearer],
  ] as const)('%s', (_name, notebook, headers) => {
    it.each(misses.flatMap((path) => ['GET', 'HEAD'].map((method) => [method, path] as const)))(
      '%s %s answers the JSON not-found error, never the UI’s HTML',
      async (method, path) => {
        const response = await notebook().app.request(`http://127.0.0.1:4317${path}`, { method, headers });
        expect(response.status).toBe(404);
        expect(response.headers.get('Content-Type')).toMatch(/^application\/json/u);
        if (method === 'GET') {
          expect(await response.json()).toEqual({
            error: { code: 'not-found', message: expect.stringMatching(/^no route GET \//u) },
          });
        }
      },
    );
  });

  it('leaves the routes and the UI as they were: /api/sessions answers, other pages get the HTML', async () => {
    const sessions = await open.app.request('/api/sessions');
    expect(sessions.status).toBe(200);
    expect(((await sessions.json()) as { sessions: unknown[] }).sessions).toHaveLength(1);
    for (const path of ['/', '/notes', '/apiary']) {
      const page = await open.app.request(path);
      expect(page.status, path).toBe(200);
      expect(await page.text(), path).toBe(html);
    }
  });
});
