import { lstat, mkdir, mkdtemp, readdir, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lockNameFor } from '../../workspace/sandbox/file-lock.ts';
import type { FileListResponse, SearchResponse } from '../api-types.ts';
import { createTestNotebook } from '../test-workspace.test-support.ts';

type Notebook = Awaited<ReturnType<typeof createTestNotebook>>;
let notebook: Notebook;
beforeEach(async () => {
  notebook = await createTestNotebook();
});
afterEach(() => notebook.cleanup());

const base = '/api/sessions/raft-consensus';
const request = (path: string, init?: RequestInit) => notebook.app.request(path, init);
const json = (method: string, body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});
const errorOf = async (response: Response) =>
  ((await response.json()) as { error: { code: string; path?: string } }).error;
const paths = async () =>
  ((await (await request(`${base}/files`)).json()) as FileListResponse).files.map((file) => file.path);

describe('file routes', () => {
  it('creates a file from a JSON body, and refuses to create it twice', async () => {
    const created = await request(`${base}/files/notes/todo.md`, json('PUT', { text: '# 待办\n' }));
    expect(created.status).toBe(200);
    expect(await (await request(`${base}/files/notes/todo.md`)).text()).toBe('# 待办\n');
    expect(await paths()).toContain('notes/todo.md');
    const again = await request(`${base}/files/notes/todo.md`, json('PUT', { text: 'other' }));
    expect(again.status).toBe(428);
  });

  it('refuses text with a NUL (it would read back as binary) and writes nothing', async () => {
    const response = await request(`${base}/files/notes/nul.md`, json('PUT', { text: 'a\u0000b' }));
    expect(response.status).toBe(400);
    expect(await errorOf(response)).toMatchObject({ code: 'invalid-argument', path: 'notes/nul.md' });
    expect((await request(`${base}/files/notes/nul.md`)).status).toBe(404);
  });

  it('validates a block sidecar before writing it, so the preview keeps working', async () => {
    const sidecar = `${base}/files/profile.blocks.json`;
    const read = await request(sidecar);
    const before = await read.text();
    const etag = read.headers.get('ETag') ?? '';
    const garbage = await request(sidecar, json('PUT', { text: '{"blocks": 1}' }, { 'If-Match': etag }));
    expect(garbage.status).toBe(422);
    expect(await errorOf(garbage)).toMatchObject({
      code: 'invalid-config',
      path: 'version',
      file: 'profile.blocks.json',
    });
    const broken = await request(sidecar, json('PUT', { text: 'not json' }, { 'If-Match': etag }));
    expect(broken.status).toBe(400);
    expect(await errorOf(broken)).toMatchObject({ code: 'parse-error' });
    // A session's own sidecar, whatever the case of its name.
    const own = await request(`${base}/files/notes/Plan.Blocks.JSON`, json('PUT', { text: '[]' }));
    expect(own.status).toBe(422);
    expect(await (await request(sidecar)).text()).toBe(before);
    expect((await request(`${base}/context-preview`)).status).toBe(200);
    // Nor by a rename onto a sidecar's name.
    await request(`${base}/files/notes/plan.txt`, json('PUT', { text: 'plan' }));
    const moved = await request(
      `${base}/files/notes/plan.txt`,
      json('PATCH', { to: 'notes/plan.blocks.json' }),
    );
    expect(moved.status).toBe(400);
    expect(await errorOf(moved)).toMatchObject({ code: 'parse-error' });
    expect(await paths()).toContain('notes/plan.txt');
    const valid = JSON.stringify({ version: 1, file: 'profile.md', blocks: [] });
    const written = await request(sidecar, json('PUT', { text: valid }, { 'If-Match': etag }));
    expect(written.status).toBe(200);
  });

  it('answers an over-long path with 400 invalid-argument, and a path that leaves with 403', async () => {
    for (const path of [`${'a/'.repeat(600)}x.md`, `${'长'.repeat(90)}.md`]) {
      for (const init of [undefined, json('PUT', { text: 'x' })]) {
        const response = await request(`${base}/files/${encodeURI(path)}`, init);
        expect(response.status).toBe(400);
        expect((await errorOf(response)).code).toBe('invalid-argument');
      }
    }
    const leaving = await request(`${base}/files/${'a/'.repeat(600)}..%2F..%2Fsecret`);
    expect(leaving.status).toBe(403);
    expect((await errorOf(leaving)).code).toBe('path-escape');
  });

  it('reads and writes the files of a session whose id is not ASCII', async () => {
    const created = await request('/api/sessions', json('POST', { concept: 'Paxos 入门' }));
    const { id } = ((await created.json()) as { session: { id: string } }).session;
    expect(id).toMatch(/入门/u);
    const files = `/api/sessions/${encodeURIComponent(id)}/files`;
    const config = await request(`${files}/context-config.json`);
    expect(config.status).toBe(200);
    expect(await config.text()).toContain('"profile"');
    expect((await request(`${files}/笔记.md`, json('PUT', { text: '# 笔记\n' }))).status).toBe(200);
    expect(await (await request(`${files}/${encodeURIComponent('笔记.md')}`)).text()).toBe('# 笔记\n');
  });

  it('refuses a messages.json its compile would fail on, and keeps the stored one', async () => {
    const current = await request(`${base}/files/messages.json`);
    const etag = current.headers.get('ETag') ?? '';
    const before = await current.text();
    const stored = JSON.parse(before) as unknown[];
    const call = {
      id: 'x1',
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'search', input: {} }],
    };
    const noValue = {
      id: 'x2',
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'search', output: { type: 'text' } }],
    };
    const put = (messages: unknown[]) =>
      request(
        `${base}/files/messages.json`,
        json('PUT', { text: JSON.stringify([...stored, ...messages], null, 2) }, { 'If-Match': etag }),
      );
    const badOutput = await put([call, noValue]);
    expect(badOutput.status).toBe(422);
    expect(await errorOf(badOutput)).toMatchObject({
      code: 'invalid-config',
      path: `${stored.length + 1}.content.0.output.value`,
    });
    const repeated = await put([stored[0]]);
    expect(repeated.status).toBe(422);
    expect(await errorOf(repeated)).toMatchObject({ code: 'invalid-config', path: `${stored.length}.id` });
    expect(await (await request(`${base}/files/messages.json`)).text()).toBe(before);
  });

  it('renames a file without overwriting an existing one', async () => {
    await request(`${base}/files/a.md`, json('PUT', { text: 'A' }));
    const moved = await request(`${base}/files/a.md`, json('PATCH', { to: 'archive/b.md' }));
    expect(moved.status).toBe(200);
    expect(((await moved.json()) as { path: string }).path).toBe('archive/b.md');
    expect(await paths()).toEqual(expect.arrayContaining(['archive/b.md']));
    expect(await paths()).not.toContain('a.md');
    const clash = await request(`${base}/files/archive/b.md`, json('PATCH', { to: 'guidance.md' }));
    expect(clash.status).toBe(409);
    expect(await (await request(`${base}/files/guidance.md`)).text()).not.toBe('A');
  });

  it('deletes a file, checking If-Match when sent', async () => {
    await request(`${base}/files/c.md`, json('PUT', { text: 'C' }));
    const stale = await request(`${base}/files/c.md`, { method: 'DELETE', headers: { 'If-Match': '"x"' } });
    expect(stale.status).toBe(412);
    const etag = (await request(`${base}/files/c.md`)).headers.get('ETag') ?? '';
    const deleted = await request(`${base}/files/c.md`, { method: 'DELETE', headers: { 'If-Match': etag } });
    expect(deleted.status).toBe(204);
    expect((await request(`${base}/files/c.md`)).status).toBe(404);
  });

  it('refuses to move or delete the session record, global files and paths outside', async () => {
    for (const [path, code] of [
      ['messages.json', 'reserved-name'],
      ['context-config.json', 'reserved-name'],
      ['memory.json', 'reserved-name'],
      ['profile.md', 'invalid-argument'],
    ]) {
      const response = await request(`${base}/files/${path}`, { method: 'DELETE' });
      expect(response.status).toBe(code === 'reserved-name' ? 403 : 400);
      expect(await errorOf(response)).toMatchObject({ code, path });
    }
    const renamed = await request(`${base}/files/guidance.md`, json('PATCH', { to: 'messages.json' }));
    expect(renamed.status).toBe(403);
    expect(await errorOf(renamed)).toMatchObject({ code: 'reserved-name', path: 'messages.json' });
    const out = await request(`${base}/files/guidance.md`, json('PATCH', { to: '../escaped.md' }));
    expect((await errorOf(out)).code).toBe('path-escape');
    const outside = await mkdtemp(join(tmpdir(), 'ctxloom-outside-'));
    try {
      await symlink(outside, join(notebook.root, 'raft-consensus', 'link'));
      const through = await request(`${base}/files/guidance.md`, json('PATCH', { to: 'link/x.md' }));
      expect((await errorOf(through)).code).toBe('path-escape');
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
    expect(await (await request(`${base}/files/guidance.md`)).text()).toContain('教学指南');
  });

  describe('names ctxloom reserves, through any link or spelling', () => {
    const session = () => join(notebook.root, 'raft-consensus');
    beforeEach(async () => {
      await mkdir(join(session(), 'sub'), { recursive: true });
      await symlink('..', join(session(), 'sub', 'link-up'));
      await writeFile(join(session(), 'calls-free.md'), 'x\n');
    });
    const snapshot = async () => {
      const names = (await readdir(session(), { recursive: true })).sort();
      return Promise.all(
        names.map(async (name) => {
          const info = await lstat(join(session(), name));
          return `${name}:${info.isFile() ? await readFile(join(session(), name), 'utf8') : ''}`;
        }),
      );
    };
    const lock = lockNameFor('messages.json');
    const reserved = [
      lock,
      lock.toUpperCase(),
      `sub/link-up/${lock}`,
      `.${process.pid}-abc.ctxloom-tmp`,
      'calls/head.json',
      'CALLS/0.json',
      'compression.json',
      'Compression.json.',
      'memory.json',
      'sub/link-up/memory.json',
      'sub/link-up/compression.json',
    ];

    it.each(reserved)('PUT %s is refused and writes nothing', async (path) => {
      const before = await snapshot();
      const response = await request(`${base}/files/${path}`, json('PUT', { text: '1\n' }));
      expect(response.status).toBe(403);
      expect(await errorOf(response)).toMatchObject({ code: 'reserved-name', path });
      expect(await snapshot()).toEqual(before);
    });

    it.each(reserved)('PATCH onto %s is refused and moves nothing', async (path) => {
      await rm(join(session(), 'memory.json'), { force: true });
      await rm(join(session(), 'compression.json'), { force: true });
      const before = await snapshot();
      const response = await request(`${base}/files/calls-free.md`, json('PATCH', { to: path }));
      expect(response.status).toBe(403);
      expect((await errorOf(response)).code).toBe('reserved-name');
      expect(await snapshot()).toEqual(before);
      expect((await request(base)).status).toBe(200);
    });

    it('lists the files ctxloom keeps with their reserved name, and hides lock and temp files', async () => {
      await mkdir(join(session(), 'calls'), { recursive: true });
      await writeFile(join(session(), 'calls', 'head.json'), '{}\n');
      await writeFile(join(session(), 'compression.json'), '{}\n');
      await writeFile(join(session(), `notes${lock.slice(1)}`), '1\n');
      const files = ((await (await request(`${base}/files`)).json()) as FileListResponse).files;
      const reserved = Object.fromEntries(files.map((file) => [file.path, file.reserved]));
      expect(reserved).toMatchObject({
        'messages.json': 'messages.json',
        'compression.json': 'compression.json',
        'context-config.json': 'context-config.json',
        calls: 'calls',
        'calls/head.json': 'calls',
        'guidance.md': undefined,
        'calls-free.md': undefined,
      });
      expect(files.some((file) => file.path.endsWith('.ctxloom-lock'))).toBe(false);
    });

    it('refuses to rename or delete a reserved file by any spelling or link', async () => {
      await writeFile(join(session(), lock), `${process.pid}\n`);
      await symlink('memory.json', join(session(), 'to-memory.md'));
      const before = await snapshot();
      for (const path of [
        'sub/link-up/memory.json',
        './memory.json',
        lock,
        'sub/link-up/messages.json',
        'to-memory.md',
      ]) {
        const moved = await request(`${base}/files/${path}`, json('PATCH', { to: 'elsewhere.md' }));
        expect({ path, status: moved.status }).toEqual({ path, status: 403 });
        const deleted = await request(`${base}/files/${path}`, { method: 'DELETE' });
        expect({ path, status: deleted.status }).toEqual({ path, status: 403 });
      }
      expect(await snapshot()).toEqual(before);
    });
  });

  describe('symlinks are renamed and deleted themselves, never their targets', () => {
    const session = () => join(notebook.root, 'raft-consensus');
    beforeEach(async () => {
      await writeFile(join(session(), 'target.md'), 'T\n');
      await symlink('target.md', join(session(), 'alias.md'));
    });

    it('moves the link, and leaves the target where it was', async () => {
      const moved = await request(`${base}/files/alias.md`, json('PATCH', { to: 'renamed.md' }));
      expect(moved.status).toBe(200);
      expect((await lstat(join(session(), 'renamed.md'))).isSymbolicLink()).toBe(true);
      expect(await readlink(join(session(), 'renamed.md'))).toBe('target.md');
      expect(await readFile(join(session(), 'target.md'), 'utf8')).toBe('T\n');
      await expect(lstat(join(session(), 'alias.md'))).rejects.toMatchObject({ code: 'ENOENT' });
    });

    it('refuses a move after which the link would lead nowhere or outside', async () => {
      const deeper = await request(`${base}/files/alias.md`, json('PATCH', { to: 'deeper/alias.md' }));
      expect(deeper.status).toBe(403);
      expect((await errorOf(deeper)).code).toBe('path-escape');
      expect((await lstat(join(session(), 'alias.md'))).isSymbolicLink()).toBe(true);
      await mkdir(join(session(), 'a'));
      await symlink('../guidance.md', join(session(), 'a', 'up.md'));
      const out = await request(`${base}/files/a/up.md`, json('PATCH', { to: 'up.md' }));
      expect((await errorOf(out)).code).toBe('path-escape');
      expect((await lstat(join(session(), 'a', 'up.md'))).isSymbolicLink()).toBe(true);
    });

    it('deletes the link, not its target', async () => {
      const deleted = await request(`${base}/files/alias.md`, { method: 'DELETE' });
      expect(deleted.status).toBe(204);
      await expect(lstat(join(session(), 'alias.md'))).rejects.toMatchObject({ code: 'ENOENT' });
      expect(await readFile(join(session(), 'target.md'), 'utf8')).toBe('T\n');
    });
  });

  it('answers a mistyped /api path with a JSON 404', async () => {
    const response = await request('/api/sesions');
    expect(response.status).toBe(404);
    expect((await errorOf(response)).code).toBe('not-found');
  });
});

describe('search route', () => {
  it('finds lines across session and global files, literally', async () => {
    const response = await request(`${base}/search?q=${encodeURIComponent('任期')}`);
    const body = (await response.json()) as SearchResponse;
    expect(body.total).toBeGreaterThan(0);
    expect(body.hits.every((hit) => hit.text.includes('任期'))).toBe(true);
    expect(new Set(body.hits.map((hit) => hit.path)).size).toBeGreaterThan(1);
    const literal = (await (
      await request(`${base}/search?q=${encodeURIComponent('(a+)+$')}`)
    ).json()) as SearchResponse;
    expect(literal.total).toBe(0);
  });

  it('refuses an empty query', async () => {
    const response = await request(`${base}/search?q=`);
    expect(response.status).toBe(400);
    expect((await errorOf(response)).path).toBe('q');
  });
});
