import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestNotebook } from '../test-workspace.test-support.ts';

let notebook: Awaited<ReturnType<typeof createTestNotebook>>;
beforeEach(async () => {
  notebook = await createTestNotebook();
});
afterEach(() => notebook.cleanup());

const base = '/api/sessions/raft-consensus';
const request = (path: string, init?: RequestInit) => notebook.app.request(path, init);
const put = (text: string, headers: Record<string, string> = {}): RequestInit => ({
  method: 'PUT',
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify({ text }),
});
const codeOf = async (response: Response) =>
  ((await response.json()) as { error: { code: string } }).error.code;

describe('conditional requests (RFC 9110)', () => {
  it('answers a stale If-Match with 412, a missing one over an existing file with 428', async () => {
    const stale = await request(`${base}/files/guidance.md`, put('# mine\n', { 'If-Match': '"stale-1"' }));
    expect(stale.status).toBe(412);
    expect(await codeOf(stale)).toBe('precondition-failed');
    const blind = await request(`${base}/files/guidance.md`, put('# mine\n'));
    expect(blind.status).toBe(428);
    expect(await codeOf(blind)).toBe('precondition-required');
    const gone = await request(`${base}/files/guidance.md`, {
      method: 'DELETE',
      headers: { 'If-Match': '"stale-1"' },
    });
    expect(gone.status).toBe(412);
    expect((await request(`${base}/files/guidance.md`)).status).toBe(200);
  });

  it('answers a stale If-Match on the manifest with 412', async () => {
    const read = await request(`${base}/context-config`);
    const raw = ((await read.json()) as { raw: unknown }).raw;
    const stale = await request(`${base}/context-config`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'If-Match': '"stale-2"' },
      body: JSON.stringify(raw),
    });
    expect(stale.status).toBe(412);
  });

  it('answers If-None-Match with the current ETag by 304 and no body, a changed file by 200', async () => {
    const first = await request(`${base}/files/guidance.md`);
    const etag = first.headers.get('ETag') ?? '';
    expect(etag).not.toBe('');
    const same = await request(`${base}/files/guidance.md`, { headers: { 'If-None-Match': etag } });
    expect(same.status).toBe(304);
    expect(same.headers.get('ETag')).toBe(etag);
    expect(await same.text()).toBe('');
    const weak = await request(`${base}/files/guidance.md`, {
      headers: { 'If-None-Match': `"x", W/${etag}` },
    });
    expect(weak.status).toBe(304);
    await request(`${base}/files/guidance.md`, put('# changed\n', { 'If-Match': etag }));
    const changed = await request(`${base}/files/guidance.md`, { headers: { 'If-None-Match': etag } });
    expect(changed.status).toBe(200);
    expect(await changed.text()).toBe('# changed\n');

    const config = await request(`${base}/context-config`);
    const configTag = config.headers.get('ETag') ?? '';
    const cached = await request(`${base}/context-config`, { headers: { 'If-None-Match': configTag } });
    expect(cached.status).toBe(304);
  });
});
