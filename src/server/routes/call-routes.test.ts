import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type CallRecord, createFileSessionStore, type SessionStore } from '../../session/index.ts';
import type { CallDiffResponse, CallListResponse, CallResponse, SessionResponse } from '../api-types.ts';
import type { ErrorBody } from '../error-response.ts';
import { createTestNotebook } from '../test-workspace.test-support.ts';

type Notebook = Awaited<ReturnType<typeof createTestNotebook>>;
const SESSION = 'raft-consensus';
let notebook: Notebook;
let store: SessionStore;
afterEach(() => notebook.cleanup());

async function open(callCapacity?: number) {
  notebook = await createTestNotebook({}, (workspace) => {
    store = createFileSessionStore({ workspace, ...(callCapacity === undefined ? {} : { callCapacity }) });
    return store;
  });
}

/** One chat turn through the route; resolves once the answer is stored (the stream's end). */
async function ask(id: string, text: string): Promise<void> {
  const response = await notebook.app.request(`/api/sessions/${SESSION}/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ id, role: 'user', parts: [{ type: 'text', text }] }] }),
  });
  expect(response.status).toBe(200);
  await response.text();
}

async function get<T>(path: string): Promise<{ status: number; body: T }> {
  const response = await notebook.app.request(`/api/sessions/${SESSION}${path}`);
  return { status: response.status, body: (await response.json()) as T };
}

/** The call id each stored answer names (`metadata.context.callId`), oldest first. */
async function answerCallIds(): Promise<string[]> {
  const { body } = await get<SessionResponse>('');
  return body.messages.flatMap((message) =>
    message.role === 'assistant' && message.metadata?.context?.callId !== undefined
      ? [message.metadata.context.callId]
      : [],
  );
}

describe('call routes', () => {
  it('open an answer’s call with its report, and diff it against the call before it', async () => {
    await open();
    await ask('q-term', 'What is a term in Raft?');
    await ask('q-log', 'How does log replication work?');
    const [first, second] = await answerCallIds();
    expect(first).toBeDefined();
    expect(second).toBeDefined();

    const { body: list } = await get<CallListResponse>('/calls');
    expect(list.calls.map((call) => call.id)).toEqual([first, second]);

    const { status, body: opened } = await get<CallResponse>(`/calls/${first}`);
    expect(status).toBe(200);
    expect(opened.call).toMatchObject({ id: first, turnId: 'q-term', step: 0, model: 'offline' });
    expect(opened.turn.map((call) => call.id)).toEqual([first]);
    expect(opened.call.report.totalTokens).toBeGreaterThan(0);
    const query = opened.call.report.layers.find((layer) => layer.layer === 'query');
    expect(query?.kept[0]?.preview).toContain('What is a term');

    // The session's first logged call has nothing before it: said as data, not an error.
    const { body: none } = await get<CallDiffResponse>(`/calls/${first}/diff`);
    expect(none).toMatchObject({
      call: { id: first, turnId: 'q-term' },
      previous: null,
      diff: null,
      layers: [],
    });

    const { body: diffed } = await get<CallDiffResponse>(`/calls/${second}/diff`);
    expect(diffed.previous).toMatchObject({ id: first, turnId: 'q-term', step: 0 });
    expect(diffed.call).not.toHaveProperty('report');
    const diff = diffed.diff;
    if (diff === null) throw new Error('expected a diff');
    // The first turn's question and answer entered the history; its query left the query layer.
    const added = diff.added.map((block) => `${block.layer} ${block.preview}`);
    expect(added.some((line) => line.startsWith('history') && line.includes('What is a term'))).toBe(true);
    expect(added.some((line) => line.startsWith('query') && line.includes('log replication'))).toBe(true);
    expect(
      diff.removed.some((block) => block.layer === 'query' && block.preview.includes('What is a term')),
    ).toBe(true);
    const [before, after] = list.calls as [CallRecord, CallRecord];
    expect(diff.totals).toEqual({
      previousTokens: before.report.totalTokens,
      currentTokens: after.report.totalTokens,
      deltaTokens: after.report.totalTokens - before.report.totalTokens,
    });
    expect(diff.cache.cachedTokens + diff.cache.uncachedTokens).toBe(after.report.totalTokens);
    expect(diffed.minCacheTokens).toBe(1024);
    const history = diffed.layers.find((layer) => layer.layer === 'history');
    expect(history?.currentTokens).toBeGreaterThan(history?.previousTokens ?? Number.POSITIVE_INFINITY);
    expect(diffed.layers.reduce((sum, layer) => sum + layer.currentTokens - layer.previousTokens, 0)).toBe(
      diff.totals.deltaTokens,
    );
  });

  it('open every step of a turn, in step order, from any of its calls', async () => {
    await open();
    await ask('q-term', 'What is a term in Raft?');
    const [first] = await answerCallIds();
    const [record] = await store.listCalls(SESSION);
    if (record === undefined || first === undefined) throw new Error('expected a logged call');
    // Steps of one turn as the tool loop logs them (same turnId, step 1, 2), appended out of order.
    const step = (n: number): CallRecord => ({ ...structuredClone(record), id: `step-${n}`, step: n });
    await store.appendCall(SESSION, step(2));
    await store.appendCall(SESSION, step(1));

    const { body } = await get<CallResponse>(`/calls/${first}`);
    expect(body.turn.map((call) => [call.id, call.step])).toEqual([
      [first, 0],
      ['step-1', 1],
      ['step-2', 2],
    ]);
    const { body: fromLast } = await get<CallResponse>('/calls/step-2');
    expect(fromLast.call.id).toBe('step-2');
    expect(fromLast.turn.map((call) => call.id)).toEqual([first, 'step-1', 'step-2']);
    // A step's diff is against the call before it in the log, whatever its step.
    const { body: diffed } = await get<CallDiffResponse>('/calls/step-1/diff');
    expect(diffed.previous?.id).toBe('step-2');
    expect(diffed.diff?.added).toEqual([]);
    expect(diffed.diff?.totals.deltaTokens).toBe(0);
  });

  it('answer a typed 404 naming the call for an unknown or evicted call, and for an unknown session', async () => {
    await open(2);
    await ask('q-1', 'What is a term in Raft?');
    await ask('q-2', 'How does log replication work?');
    await ask('q-3', 'Why are election timeouts random?');
    const [evicted, kept] = await answerCallIds();
    expect((await get<CallResponse>(`/calls/${kept}`)).status).toBe(200);
    for (const path of [`/calls/${evicted}`, `/calls/${evicted}/diff`, '/calls/nope', '/calls/nope/diff']) {
      const { status, body } = await get<ErrorBody>(path);
      expect(status, path).toBe(404);
      expect(body.error.code).toBe('not-found');
      expect(body.error.path).toBe(path.split('/')[2]);
      expect(body.error.message, path).toContain('(none of the 2 calls its log keeps has that id)');
    }
    // The oldest call kept has no previous one in the log any more.
    const { body } = await get<CallDiffResponse>(`/calls/${kept}/diff`);
    expect(body).toMatchObject({ previous: null, diff: null });

    const response = await notebook.app.request(`/api/sessions/no-such-session/calls/${kept}`);
    expect(response.status).toBe(404);
    expect(((await response.json()) as ErrorBody).error).toMatchObject({
      code: 'not-found',
      path: 'no-such-session',
    });
  });

  it('answer 400 invalid-argument naming limit and its range for a limit that is not 1 to 1000', async () => {
    await open();
    await ask('q-1', 'What is a term in Raft?');
    await ask('q-2', 'How does log replication work?');
    for (const limit of ['abc', '-1', '1e999', '0', '2.5', '', '1001', '0x10', ' 1']) {
      const { status, body } = await get<ErrorBody>(`/calls?limit=${encodeURIComponent(limit)}`);
      expect(status, limit).toBe(400);
      expect(body.error).toMatchObject({ code: 'invalid-argument', path: 'limit' });
      expect(body.error.message).toContain('from 1 to 1000');
    }
    const huge = await get<ErrorBody>(`/calls?limit=${'9'.repeat(5000)}`);
    expect(huge.status).toBe(400);
    expect(huge.body.error.message.length).toBeLessThan(200);
    expect((await get<CallListResponse>('/calls?limit=1')).body.calls.map((call) => call.turnId)).toEqual([
      'q-2',
    ]);
    expect((await get<CallListResponse>('/calls?limit=1000')).body.calls).toHaveLength(2);
    expect((await get<CallListResponse>('/calls')).body.calls).toHaveLength(2);
  });

  it('answer 422 invalid-config naming calls/head.json for a corrupt call log head, never a 500', async () => {
    await open();
    await ask('q-1', 'What is a term in Raft?');
    const head = join(notebook.root, SESSION, 'calls', 'head.json');
    for (const text of ['null', '{"next":"../../x"}', '{"next":-5}', '{"a":1}']) {
      await writeFile(head, `${text}\n`);
      for (const path of ['', '/calls']) {
        const { status, body } = await get<ErrorBody>(path);
        expect(status, `${text} ${path}`).toBe(422);
        expect(body.error).toMatchObject({ code: 'invalid-config', path: 'next' });
        expect(body.error.message).toContain('(calls/head.json at next)');
      }
      // A chat turn fails before it stores anything: no user message, no call slot.
      const messages = await readFile(join(notebook.root, SESSION, 'messages.json'), 'utf8');
      const response = await notebook.app.request(`/api/sessions/${SESSION}/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          messages: [{ id: 'q-2', role: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
        }),
      });
      expect(response.status).toBe(422);
      expect(await readFile(join(notebook.root, SESSION, 'messages.json'), 'utf8')).toBe(messages);
      expect((await readdir(join(notebook.root, SESSION, 'calls'))).sort()).toEqual([
        '000000.json',
        'head.json',
      ]);
      expect(await readFile(head, 'utf8')).toBe(`${text}\n`);
    }
  });

  it('shorten a long call id in its 404', async () => {
    await open();
    const id = 'c'.repeat(5000);
    const { status, body } = await get<ErrorBody>(`/calls/${id}`);
    expect(status).toBe(404);
    expect(JSON.stringify(body).length).toBeLessThan(1000);
    expect(body.error.path).toMatch(/^c{199}…$/u);
  });
});
