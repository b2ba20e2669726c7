import { lstat, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HAS_MKFIFO, makeFifo, releaseFifoReaders } from '../workspace/sandbox/fifo.test-support.ts';
import { createTestNotebook } from './test-workspace.test-support.ts';

type Notebook = Awaited<ReturnType<typeof createTestNotebook>>;
let notebook: Notebook;
beforeEach(async () => {
  notebook = await createTestNotebook();
  const session = join(notebook.root, 'raft-consensus');
  await symlink('loop', join(session, 'loop'));
  await mkdir(join(session, 'sub'));
  await symlink('..', join(session, 'sub', 'link-up'));
  await mkdir(join(notebook.root, 'other'));
  await writeFile(join(notebook.root, 'other', 'private.md'), '# private\n');
});
afterEach(() => notebook.cleanup());

const body = (text: string) => ({
  method: 'PUT',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ text }),
});
const files = '/api/sessions/raft-consensus/files';
const rename = (to: string): RequestInit => ({
  method: 'PATCH',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ to }),
});

describe('HTTP error walk: every failure is typed, never a 500, never a server path', () => {
  const cases: [string, string, RequestInit | undefined, number, string][] = [
    ['read through a symlink loop (ELOOP)', `${files}/loop/x.md`, undefined, 403, 'path-escape'],
    ['write through a symlink loop (ELOOP)', `${files}/loop/x.md`, body('x'), 403, 'path-escape'],
    ['write over a folder (EISDIR)', `${files}/sub`, body('x'), 400, 'invalid-argument'],
    ['write below a file (ENOTDIR)', `${files}/guidance.md/x.md`, body('x'), 400, 'invalid-argument'],
    ['read a folder', `${files}/sub`, undefined, 400, 'invalid-argument'],
    ['read a missing file (ENOENT)', `${files}/missing/x.md`, undefined, 404, 'not-found'],
    ['bad percent-encoding (URIError)', `${files}/%E0%A4%A`, undefined, 400, 'invalid-argument'],
    ['bad percent-encoding in a session id', '/api/sessions/%E0%A4%A', undefined, 403, 'path-escape'],
    [
      'profile blocks of a looping file',
      '/api/profile/blocks?session=raft-consensus&file=loop/x.md',
      undefined,
      403,
      'path-escape',
    ],
    [
      'memory.json through a symlink',
      `${files}/sub/link-up/memory.json`,
      body('{"version":1,"events":[]}'),
      403,
      'reserved-name',
    ],
    [
      'an invalid history through a symlink',
      `${files}/sub/link-up/messages.json`,
      body('[{"id":1}]'),
      422,
      'invalid-config',
    ],
    [
      'rename below a file (mkdir meets a file: EEXIST)',
      `${files}/milestones.md`,
      rename('guidance.md/y.md'),
      400,
      'invalid-argument',
    ],
    [
      'rename two levels below a file (ENOTDIR)',
      `${files}/milestones.md`,
      rename('guidance.md/sub/y.md'),
      400,
      'invalid-argument',
    ],
    [
      'a bad JSON escape in the request body',
      '/api/sessions',
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"concept": "a\\x"}' },
      400,
      'parse-error',
    ],
  ];
  it.each(cases)('%s', async (_name, path, init, status, code) => {
    const memory = await readFile(join(notebook.root, 'raft-consensus', 'memory.json'), 'utf8');
    const response = await notebook.app.request(path, init);
    const text = await response.text();
    expect(response.status, text).toBe(status);
    expect((JSON.parse(text) as { error: { code: string } }).error.code).toBe(code);
    expect(text).not.toContain(notebook.root);
    expect(await readFile(join(notebook.root, 'raft-consensus', 'memory.json'), 'utf8')).toBe(memory);
  });

  it('a manifest with a bad escape gives a located parse-error in the preview, not a 500', async () => {
    await writeFile(
      join(notebook.root, 'raft-consensus', 'context-config.json'),
      '{\n  "version": 1,\n  "query": "bad \\u12 escape"\n}\n',
    );
    const response = await notebook.app.request('/api/sessions/raft-consensus/context-preview');
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: { code: 'parse-error', path: 'context-config.json', line: 3, column: 17 },
    });
  });

  it("a manifest's global prompt cannot pull another session's file into the preview", async () => {
    await writeFile(
      join(notebook.root, 'raft-consensus', 'context-config.json'),
      JSON.stringify({ version: 1, systemPrompt: [{ type: 'global', file: 'other/private.md' }] }),
    );
    const response = await notebook.app.request('/api/sessions/raft-consensus/context-preview');
    const text = await response.text();
    expect(response.status).toBe(403);
    expect(text).not.toContain('# private');
  });

  it('a curation request with one valid and one unknown id stores nothing (404 naming both)', async () => {
    const before = await readFile(join(notebook.root, 'raft-consensus', 'memory.json'), 'utf8');
    const response = await notebook.app.request('/api/sessions/raft-consensus/curation', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ targetMessageIds: ['m002', 'nope', 'gone'], action: 'exclude' }),
    });
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(
      /"nope", "gone"/u,
    );
    expect(await readFile(join(notebook.root, 'raft-consensus', 'memory.json'), 'utf8')).toBe(before);
  });

  it('a rename below a file names the target, relative to the session, and moves nothing', async () => {
    const session = join(notebook.root, 'raft-consensus');
    const milestones = await readFile(join(session, 'milestones.md'), 'utf8');
    for (const to of ['guidance.md/y.md', 'guidance.md/sub/y.md']) {
      const response = await notebook.app.request(`${files}/milestones.md`, rename(to));
      expect(response.status, to).toBe(400);
      expect(((await response.json()) as { error: unknown }).error).toEqual({
        code: 'invalid-argument',
        message: `a parent of the path is a file, not a folder (${to})`,
        path: to,
        file: to,
      });
    }
    expect(await readFile(join(session, 'milestones.md'), 'utf8')).toBe(milestones);
    expect((await lstat(join(session, 'guidance.md'))).isFile()).toBe(true);
  });

  it.skipIf(!HAS_MKFIFO)(
    'a read of a named pipe is a 400 naming it, not a request that never returns',
    async () => {
      const fifo = join(notebook.root, 'raft-consensus', 'fifo.md');
      makeFifo(fifo);
      try {
        const responses = await Promise.all(
          Array.from({ length: 8 }, () => notebook.app.request(`${files}/fifo.md`)),
        );
        for (const response of responses) {
          expect(response.status).toBe(400);
          expect(((await response.json()) as { error: unknown }).error).toMatchObject({
            code: 'invalid-argument',
            path: 'fifo.md',
          });
        }
        // The search reads every file: the pipe is skipped, the rest is searched.
        const search = await notebook.app.request('/api/sessions/raft-consensus/search?q=raft');
        expect(search.status).toBe(200);
        expect(((await search.json()) as { hits: unknown[] }).hits.length).toBeGreaterThan(0);
      } finally {
        releaseFifoReaders(fifo);
      }
    },
  );

  it('a curation request with a megabyte id answers a short error, the id shortened', async () => {
    const id = `${'x'.repeat(1_500_000)}-end`;
    const response = await notebook.app.request('/api/sessions/raft-consensus/curation', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ targetMessageIds: [id, 'nope'], action: 'exclude' }),
    });
    const text = await response.text();
    expect(response.status).toBe(404);
    expect(text.length).toBeLessThan(2000);
    expect(text).not.toContain('-end');
    const error = (JSON.parse(text) as { error: { code: string; message: string; path: string } }).error;
    expect(error.code).toBe('not-found');
    expect(error.path).toBe(`${'x'.repeat(199)}…`);
    expect(error.message).toContain(`no message with id "${'x'.repeat(199)}…", "nope"; nothing was stored`);
  });

  it('a curation request with many unknown ids names the first few and counts the rest', async () => {
    const ids = Array.from({ length: 100 }, (_, index) => `unknown-${index}`);
    const response = await notebook.app.request('/api/sessions/raft-consensus/curation', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ targetMessageIds: ids, action: 'exclude' }),
    });
    expect(response.status).toBe(404);
    const { message } = ((await response.json()) as { error: { message: string } }).error;
    expect(message).toContain('"unknown-0", "unknown-1", "unknown-2", "unknown-3", "unknown-4" and 95 more');
  });
});
