import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Message } from '../../core/index.ts';
import { createOfflineModel } from '../../llm/index.ts';
import { createFileSessionStore, createSessionEngine } from '../../session/index.ts';
import type { CallListResponse, PreviewResponse } from '../api-types.ts';
import { createTestNotebook } from '../test-workspace.test-support.ts';

const SESSION = 'raft-consensus';
let notebook: Awaited<ReturnType<typeof createTestNotebook>>;
beforeEach(async () => {
  notebook = await createTestNotebook();
});
afterEach(() => notebook.cleanup());

const messagesFile = () => join(notebook.root, SESSION, 'messages.json');
const request = (path: string, init?: RequestInit) => notebook.app.request(path, init);
const post = (path: string, body: unknown) =>
  request(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
const chat = (id: string, text = 'What is a term?') =>
  post(`/api/sessions/${SESSION}/chat`, {
    messages: [
      { id: 'earlier', role: 'assistant', parts: [{ type: 'text', text: 'hello' }] },
      { id, role: 'user', parts: [{ type: 'text', text }] },
    ],
  });
const errorOf = async (response: Response) =>
  ((await response.json()) as { error: { code: string; path?: string; message: string } }).error;
const duplicates = (ids: readonly string[]) => ids.filter((id, index) => ids.indexOf(id) !== index);

describe('a message id of the layer: namespace', () => {
  it('is refused by the chat route, naming the body field, before anything is compiled or stored', async () => {
    const before = await readFile(messagesFile(), 'utf8');
    const response = await chat('layer:system');
    expect(response.status).toBe(400);
    expect(await errorOf(response)).toMatchObject({ code: 'invalid-argument', path: 'messages.1.id' });
    expect(await readFile(messagesFile(), 'utf8')).toBe(before);
    const calls = (await (await request(`/api/sessions/${SESSION}/calls`)).json()) as CallListResponse;
    expect(calls.calls).toEqual([]);
  });

  it('is refused by the session engine as a turn’s messageId (MCP, CLI, library), nothing stored', async () => {
    const engine = createSessionEngine({
      workspace: notebook.workspace,
      store: createFileSessionStore({ workspace: notebook.workspace }),
      model: { model: createOfflineModel(), spec: 'offline', offline: true },
    });
    const before = await readFile(messagesFile(), 'utf8');
    await expect(
      engine.runTurn({ sessionId: SESSION, text: 'What is a term?', messageId: 'layer:knowledge__context' }),
    ).rejects.toMatchObject({ code: 'invalid-argument', path: 'messageId' });
    expect(await readFile(messagesFile(), 'utf8')).toBe(before);
    expect(await engine.listCalls(SESSION)).toEqual([]);
  });

  it('is refused in a messages.json written through the file routes, naming the message and line', async () => {
    const stored = JSON.parse(await readFile(messagesFile(), 'utf8')) as Message[];
    const edited = [...stored, { id: 'layer:system', role: 'user', content: 'edited in' }];
    const response = await request(`/api/sessions/${SESSION}/files/messages.json`, {
      method: 'PUT',
      headers: {
        'content-type': 'application/json',
        'If-Match': (await request(`/api/sessions/${SESSION}/files/messages.json`)).headers.get('ETag') ?? '',
      },
      body: JSON.stringify({ text: `${JSON.stringify(edited, null, 2)}\n` }),
    });
    expect(response.status).toBe(422);
    expect(await errorOf(response)).toMatchObject({ code: 'invalid-config', path: `${stored.length}.id` });
    expect(JSON.parse(await readFile(messagesFile(), 'utf8'))).toEqual(stored);
  });

  it('stored before the rule, still loads, previews and chats, with no id sent twice', async () => {
    const stored = JSON.parse(await readFile(messagesFile(), 'utf8')) as Message[];
    const old: Message[] = [
      ...stored,
      { id: 'layer:system', role: 'user', content: 'An id from before the rule.' },
      { id: 'layer:system+framework__context', role: 'assistant', content: 'Noted.' },
    ];
    await writeFile(messagesFile(), `${JSON.stringify(old, null, 2)}\n`);
    const session = await request(`/api/sessions/${SESSION}`);
    expect(session.status).toBe(200);
    const loaded = ((await session.json()) as { messages: Message[] }).messages.map((m) => m.id);
    expect(loaded.slice(-2)).toEqual(['layer:system', 'layer:system+framework__context']);
    const preview = (await (
      await request(`/api/sessions/${SESSION}/context-preview`)
    ).json()) as PreviewResponse;
    const sent = preview.messages.map((message) => message.id);
    expect(sent).toContain('layer:system');
    expect(duplicates(sent)).toEqual([]);
    expect(duplicates((preview.report.messages ?? []).map((message) => message.id))).toEqual([]);
    expect(preview.report.warnings?.map((warning) => warning.code)).toContain('message-id-reserved');

    const turn = await chat('u-after');
    expect(turn.status).toBe(200);
    await turn.text();
    const { calls } = (await (await request(`/api/sessions/${SESSION}/calls`)).json()) as CallListResponse;
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) {
      expect(duplicates((call.report.messages ?? []).map((message) => message.id))).toEqual([]);
    }
  });
});
