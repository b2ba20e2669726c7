import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../workspace/json/parse-json-tree.ts';
import { createTestNotebook } from './test-workspace.test-support.ts';

type Notebook = Awaited<ReturnType<typeof createTestNotebook>>;
let notebook: Notebook;
beforeEach(async () => {
  notebook = await createTestNotebook();
});
afterEach(() => notebook.cleanup());

const post = (body: BodyInit) =>
  notebook.app.request('/api/sessions', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
const errorOf = async (response: Response) =>
  ((await response.json()) as { error: { code: string; path?: string; line?: number; column?: number } })
    .error;

describe('readJsonBody', () => {
  it('refuses a body nested deeper than the JSON limit with a located parse-error', async () => {
    for (const body of [
      `{"concept": "x",\n "id": ${'['.repeat(5000)}${']'.repeat(5000)}}`,
      `\n${'['.repeat(2_000_000)}`,
    ]) {
      const response = await post(body);
      expect(response.status).toBe(400);
      expect(await errorOf(response)).toMatchObject({
        code: 'parse-error',
        path: 'request body',
        line: 2,
        column: body.startsWith('{') ? 8 + MAX_JSON_DEPTH : 2 + MAX_JSON_DEPTH,
      });
    }
  });

  it('refuses a body in UTF-16, or with a NUL, as not UTF-8 JSON (400 parse-error), writing nothing', async () => {
    const json = '{"concept": "utf-16"}';
    const utf16 = new Uint8Array(Buffer.from(json, 'utf16le'));
    const withBom = new Uint8Array([0xff, 0xfe, ...utf16]);
    const withNul = new Uint8Array([...Buffer.from(json), 0]);
    for (const body of [utf16, withBom, withNul]) {
      const response = await post(body);
      expect(response.status).toBe(400);
      expect(await errorOf(response)).toMatchObject({
        code: 'parse-error',
        message: 'request body is not UTF-8 JSON (request body)',
      });
    }
    const config = await notebook.app.request('/api/sessions/raft-consensus/context-config', {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'If-Match': '*' },
      body: utf16,
    });
    expect(config.status).toBe(400);
    expect((await errorOf(config)).code).toBe('parse-error');
    const listed = (await (await notebook.app.request('/api/sessions')).json()) as { sessions: unknown[] };
    expect(listed.sessions).toHaveLength(1);
  });
});
