import { mkdir, readdir, writeFile } from 'node:fs/promises';
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
const errorOf = async (response: Response) =>
  ((await response.json()) as { error: { code: string; path?: string } }).error;
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

  it('still answers 404 for an id that is neither registered nor a folder', async () => {
    const response = await request('/api/sessions/nothing-here', { method: 'DELETE' });
    expect(response.status).toBe(404);
    expect((await errorOf(response)).code).toBe('not-found');
  });
});
