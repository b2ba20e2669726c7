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
});
