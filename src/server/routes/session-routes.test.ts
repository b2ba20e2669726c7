import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestNotebook } from '../test-workspace.test-support.ts';

type Notebook = Awaited<ReturnType<typeof createTestNotebook>>;
let notebook: Notebook;
beforeEach(async () => {
  notebook = await createTestNotebook();
});
afterEach(() => notebook.cleanup());

const request = (path: string, init?: RequestInit) => notebook.app.request(path, init);
const json = (method: string, body: unknown): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});
const errorOf = async (response: Response) =>
  ((await response.json()) as { error: { code: string; path?: string } }).error;
const listedIds = async () =>
  ((await (await request('/api/sessions')).json()) as { sessions: { id: string }[] }).sessions.map(
    (session) => session.id,
  );

describe('DELETE /api/sessions/:id', () => {
  it('answers 404 for a folder that is not a session and deletes nothing in it', async () => {
    const folder = join(notebook.root, 'stray');
    await mkdir(join(folder, 'calls'), { recursive: true });
    await writeFile(join(folder, 'messages.json'), '[]\n');
    await writeFile(join(folder, 'memory.json'), '[]\n');
    await writeFile(join(folder, 'calls', '000001.json'), '{}\n');
    const response = await request('/api/sessions/stray', { method: 'DELETE' });
    expect(response.status).toBe(404);
    expect(await errorOf(response)).toMatchObject({ code: 'not-found', path: 'stray' });
    expect((await readdir(folder)).sort()).toEqual(['calls', 'memory.json', 'messages.json']);
    expect(await readdir(join(folder, 'calls'))).toEqual(['000001.json']);
  });

  it('deletes a registered session whose folder is missing, so the id can be created again', async () => {
    await rm(join(notebook.root, 'raft-consensus'), { recursive: true });
    const deleted = await request('/api/sessions/raft-consensus', { method: 'DELETE' });
    expect(deleted.status).toBe(204);
    expect(await listedIds()).toEqual([]);
    const created = await request('/api/sessions', json('POST', { concept: 'Raft', id: 'raft-consensus' }));
    expect(created.status).toBe(201);
    expect(await listedIds()).toEqual(['raft-consensus']);
  });

  it('still answers 404 for an id that is neither registered nor a folder', async () => {
    const response = await request('/api/sessions/nothing-here', { method: 'DELETE' });
    expect(response.status).toBe(404);
    expect((await errorOf(response)).code).toBe('not-found');
  });
});

describe('the concept of POST and PATCH /api/sessions', () => {
  it('refuses control characters and lone surrogates with the path concept, creating nothing', async () => {
    for (const concept of ['a\u0000b', 'two\nlines', 'bell\u0007', 'c1\u0085', 'half \ud800 a pair']) {
      for (const [method, path] of [
        ['POST', '/api/sessions'],
        ['PATCH', '/api/sessions/raft-consensus'],
      ] as const) {
        const response = await request(path, json(method, { concept }));
        expect(response.status, `${method} ${JSON.stringify(concept)}`).toBe(400);
        expect(await errorOf(response)).toMatchObject({ code: 'invalid-argument', path: 'concept' });
      }
    }
    expect(await listedIds()).toEqual(['raft-consensus']);
    const session = (await (await request('/api/sessions/raft-consensus')).json()) as {
      session: { concept: string };
    };
    expect(session.session.concept).toBe('Raft 共识算法 / Raft consensus');
  });

  it('accepts a concept in any script, trimmed', async () => {
    const response = await request('/api/sessions', json('POST', { concept: '  Paxos 入门 🚀 ' }));
    expect(response.status).toBe(201);
    expect(((await response.json()) as { session: { concept: string } }).session.concept).toBe(
      'Paxos 入门 🚀',
    );
  });
});
