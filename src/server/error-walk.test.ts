import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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
});
