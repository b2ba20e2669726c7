import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteSaver } from '../runtime/checkpoint/sqlite-saver.ts';
import { createCheckpointSessionStore } from '../session/index.ts';
import { readMessages } from '../workspace/index.ts';
import { createTestNotebook } from './test-workspace.test-support.ts';

type Notebook = Awaited<ReturnType<typeof createTestNotebook>>;
let notebook: Notebook;
beforeEach(async () => {
  notebook = await createTestNotebook();
});
afterEach(() => notebook.cleanup());

const json = (body: unknown, headers: Record<string, string> = {}) => ({
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});
/** The body of a file write: JSON `{ text }`. */
const text = (content: string, headers: Record<string, string> = {}) => json({ text: content }, headers);
const request = (path: string, init?: RequestInit) => notebook.app.request(path, init);
const errorOf = async (response: Response) =>
  ((await response.json()) as { error: { code: string; path?: string } }).error;

describe('session routes', () => {
  it('lists the sessions and says which model answers', async () => {
    const response = await request('/api/sessions');
    const body = (await response.json()) as { sessions: { id: string }[]; model: { offline: boolean } };
    expect(body.sessions.map((session) => session.id)).toEqual(['raft-consensus']);
    expect(body.model.offline).toBe(true);
  });

  it('creates, renames and deletes a session', async () => {
    const created = await request('/api/sessions', { method: 'POST', ...json({ concept: 'Paxos 入门' }) });
    expect(created.status).toBe(201);
    const { session } = (await created.json()) as { session: { id: string; concept: string } };
    expect(session.id).toMatch(/^paxos-入门-/u);
    const renamed = await request(`/api/sessions/${encodeURIComponent(session.id)}`, {
      method: 'PATCH',
      ...json({ concept: 'Paxos made simple' }),
    });
    expect(((await renamed.json()) as { session: { concept: string } }).session.concept).toBe(
      'Paxos made simple',
    );
    const read = await request(`/api/sessions/${encodeURIComponent(session.id)}`);
    expect(((await read.json()) as { messages: unknown[] }).messages).toEqual([]);
    const deleted = await request(`/api/sessions/${encodeURIComponent(session.id)}`, { method: 'DELETE' });
    expect(deleted.status).toBe(204);
    expect((await request(`/api/sessions/${encodeURIComponent(session.id)}`)).status).toBe(404);
  });

  it('deletes the session store’s record too: a session created again under the id starts empty', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ctxloom-delete-'));
    const saver = new SqliteSaver({ path: join(dir, 'sessions.db'), durability: 'normal' });
    const other = await createTestNotebook({}, () => createCheckpointSessionStore({ saver, kind: 'sqlite' }));
    try {
      const call = (path: string, init?: RequestInit) => other.app.request(path, init);
      await call('/api/sessions', { method: 'POST', ...json({ concept: 'x', id: 'again' }) });
      const chat = await call('/api/sessions/again/chat', {
        method: 'POST',
        ...json({ messages: [{ id: 'u-1', role: 'user', parts: [{ type: 'text', text: 'hello' }] }] }),
      });
      await chat.text();
      const before = (await (await call('/api/sessions/again')).json()) as { messages: unknown[] };
      expect(before.messages.length).toBeGreaterThan(0);
      expect((await call('/api/sessions/again', { method: 'DELETE' })).status).toBe(204);
      await call('/api/sessions', { method: 'POST', ...json({ concept: 'x', id: 'again' }) });
      const after = (await (await call('/api/sessions/again')).json()) as { messages: unknown[] };
      expect(after.messages).toEqual([]);
    } finally {
      await other.cleanup();
      await saver.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses a duplicate id with conflict', async () => {
    const response = await request('/api/sessions', {
      method: 'POST',
      ...json({ concept: 'x', id: 'raft-consensus' }),
    });
    expect(response.status).toBe(409);
    expect((await errorOf(response)).code).toBe('conflict');
  });

  it('returns the stored history as UI messages with tool parts', async () => {
    const body = (await (await request('/api/sessions/raft-consensus')).json()) as {
      messages: { role: string; parts: { type: string; state?: string }[] }[];
    };
    const tools = body.messages
      .flatMap((message) => message.parts)
      .filter((part) => part.type === 'dynamic-tool');
    expect(tools.length).toBeGreaterThan(0);
    expect(tools.every((part) => part.state === 'output-available' || part.state === 'output-error')).toBe(
      true,
    );
  });

  it('answers 404 not-found for an unknown session on every session route', async () => {
    for (const [method, path] of [
      ['GET', '/api/sessions/nope'],
      ['PATCH', '/api/sessions/nope'],
      ['DELETE', '/api/sessions/nope'],
      ['GET', '/api/sessions/nope/files'],
      ['GET', '/api/sessions/nope/files/a.md'],
      ['GET', '/api/sessions/nope/context-config'],
      ['GET', '/api/sessions/nope/context-preview'],
      ['POST', '/api/sessions/nope/chat'],
      ['POST', '/api/sessions/nope/compress'],
    ] as const) {
      const response = await request(path, { method, ...(method === 'GET' ? {} : json({ concept: 'x' })) });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect((await errorOf(response)).code).toBe('not-found');
    }
  });

  it('rejects a session id that tries to leave the workspace', async () => {
    const response = await request('/api/sessions/..%2Fetc');
    expect(response.status).toBe(403);
    expect((await errorOf(response)).code).toBe('path-escape');
  });

  it('rejects malformed JSON and a body of the wrong shape', async () => {
    const malformed = await request('/api/sessions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{',
    });
    expect(malformed.status).toBe(400);
    expect((await errorOf(malformed)).code).toBe('parse-error');
    const wrong = await request('/api/sessions', { method: 'POST', ...json({ concept: 42 }) });
    expect(wrong.status).toBe(400);
    expect(await errorOf(wrong)).toMatchObject({ code: 'invalid-argument', path: 'concept' });
  });
});

describe('file routes', () => {
  it('lists session files and the global files it may read', async () => {
    const { files } = (await (await request('/api/sessions/raft-consensus/files')).json()) as {
      files: { path: string; global: boolean }[];
    };
    expect(files).toContainEqual(expect.objectContaining({ path: 'guidance.md', global: false }));
    expect(files).toContainEqual(expect.objectContaining({ path: 'profile.md', global: true }));
  });

  it('writes with the ETag it read and refuses a stale one', async () => {
    const read = await request('/api/sessions/raft-consensus/files/guidance.md');
    const etag = read.headers.get('ETag')!;
    const first = await request('/api/sessions/raft-consensus/files/guidance.md', {
      method: 'PUT',
      ...text('# new guidance\n', { 'If-Match': etag }),
    });
    expect(first.status).toBe(200);
    const stale = await request('/api/sessions/raft-consensus/files/guidance.md', {
      method: 'PUT',
      ...text('# other editor\n', { 'If-Match': etag }),
    });
    expect(stale.status).toBe(412);
    expect((await errorOf(stale)).code).toBe('precondition-failed');
    expect(await (await request('/api/sessions/raft-consensus/files/guidance.md')).text()).toBe(
      '# new guidance\n',
    );
  });

  it('refuses to overwrite an existing file without If-Match but creates a new one', async () => {
    const blind = await request('/api/sessions/raft-consensus/files/guidance.md', {
      method: 'PUT',
      ...text('x'),
    });
    expect(blind.status).toBe(428);
    expect((await errorOf(blind)).code).toBe('precondition-required');
    const created = await request('/api/sessions/raft-consensus/files/notes/%E7%AC%94%E8%AE%B0.md', {
      method: 'PUT',
      ...text('# 笔记\n'),
    });
    expect(created.status).toBe(200);
    expect(
      await (await request('/api/sessions/raft-consensus/files/notes/%E7%AC%94%E8%AE%B0.md')).text(),
    ).toBe('# 笔记\n');
  });

  it('writes a global file where it lives, so the profile blocks change', async () => {
    const read = await request('/api/sessions/raft-consensus/files/profile.md');
    const response = await request('/api/sessions/raft-consensus/files/profile.md', {
      method: 'PUT',
      ...text('# 新标题\n内容\n', { 'If-Match': read.headers.get('ETag')! }),
    });
    expect(response.status).toBe(200);
    const { blocks } = (await (await request('/api/profile/blocks')).json()) as { blocks: { id: string }[] };
    expect(blocks.map((block) => block.id)).toEqual(['新标题']);
  });

  it.each([
    ['..%2F..%2Fetc%2Fpasswd'],
    ['%2Fetc%2Fpasswd'],
    ['..%5C..%5Cwindows'],
    ['sub%2F..%2F..%2Fsessions.json'],
  ])('refuses the traversal path %s', async (path) => {
    for (const method of ['GET', 'PUT']) {
      const response = await request(`/api/sessions/raft-consensus/files/${path}`, {
        method,
        ...(method === 'PUT' ? text('x') : {}),
      });
      expect(response.status, method).toBe(403);
      expect((await errorOf(response)).code).toBe('path-escape');
    }
  });

  it('validates the manifest and the history written as files, and keeps the audit log append-only', async () => {
    const put = async (path: string, body: string) => {
      const etag = (await request(`/api/sessions/raft-consensus/files/${path}`)).headers.get('ETag')!;
      return request(`/api/sessions/raft-consensus/files/${path}`, {
        method: 'PUT',
        ...text(body, { 'If-Match': etag }),
      });
    };
    const config = await put('context-config.json', '{"version": 1, "profileBlocks": "all"}');
    expect(config.status).toBe(422);
    expect(await errorOf(config)).toMatchObject({ code: 'invalid-config', path: 'profileBlocks' });
    const messages = await put('messages.json', '[{"id": "x", "role": "robot", "content": "hi"}]');
    expect(messages.status).toBe(422);
    const memory = await put('memory.json', '{"version": 1, "events": []}');
    expect(memory.status).toBe(403);
    expect(await errorOf(memory)).toMatchObject({ code: 'reserved-name', path: 'memory.json' });
  });

  it('answers not-found for a missing file', async () => {
    const response = await request('/api/sessions/raft-consensus/files/missing.md');
    expect(response.status).toBe(404);
    expect((await errorOf(response)).path).toBe('missing.md');
  });

  it('refuses an oversized body with too-large', async () => {
    const small = await createTestNotebook({ maxBodyBytes: 1024 });
    try {
      const response = await small.app.request('/api/sessions/raft-consensus/files/big.md', {
        method: 'PUT',
        ...text('x'.repeat(4096)),
      });
      expect(response.status).toBe(413);
      expect((await errorOf(response)).code).toBe('too-large');
    } finally {
      await small.cleanup();
    }
  });
});

describe('context routes', () => {
  it('lists the profile blocks as a tree', async () => {
    const body = (await (await request('/api/profile/blocks?session=raft-consensus')).json()) as {
      file: string;
      blocks: { id: string; children: { id: string }[] }[];
    };
    expect(body.file).toBe('profile.md');
    expect(body.blocks.map((block) => block.id)).toContain('学习目标');
    expect(body.blocks.find((block) => block.id === '基本信息')?.children.map((child) => child.id)).toContain(
      '基本信息/工作经验',
    );
  });

  it('writes profileBlocks and the preview follows', async () => {
    const read = await request('/api/sessions/raft-consensus/context-config');
    const { raw } = (await read.json()) as { raw: Record<string, unknown> };
    const before = (await (await request('/api/sessions/raft-consensus/context-preview')).json()) as {
      report: { totalTokens: number };
    };
    const put = await request('/api/sessions/raft-consensus/context-config', {
      method: 'PUT',
      ...json({ ...raw, profileBlocks: [] }, { 'If-Match': read.headers.get('ETag')! }),
    });
    expect(put.status).toBe(200);
    const after = (await (await request('/api/sessions/raft-consensus/context-preview')).json()) as {
      report: { totalTokens: number; layers: { layer: string; kept: { source: string }[] }[] };
    };
    expect(after.report.totalTokens).toBeLessThan(before.report.totalTokens);
    const knowledge = after.report.layers.find((layer) => layer.layer === 'knowledge__context');
    expect(knowledge?.kept.filter((block) => block.source === 'profile') ?? []).toEqual([]);
  });

  it('refuses a malformed config with the JSON path that is wrong', async () => {
    const response = await request('/api/sessions/raft-consensus/context-config', {
      method: 'PUT',
      ...json({ version: 1, budget: { window: 'big' } }, { 'If-Match': '*' }),
    });
    expect(response.status).toBe(422);
    expect(await errorOf(response)).toMatchObject({ code: 'invalid-config', path: 'budget.window' });
    const broken = await request('/api/sessions/raft-consensus/context-config', {
      method: 'PUT',
      headers: { 'If-Match': '*', 'content-type': 'application/json' },
      body: '{"version": 1,',
    });
    expect((await errorOf(broken)).code).toBe('parse-error');
  });

  it('refuses a body that is not UTF-8, and text UTF-8 cannot store, writing nothing', async () => {
    const file = '/api/sessions/raft-consensus/files/notes/utf8.md';
    // 0xff is no UTF-8: decoded leniently it became U+FFFD and was stored as if sent.
    const invalid = Buffer.concat([Buffer.from('{"text": "a'), Buffer.from([0xff]), Buffer.from('b"}')]);
    for (const path of [file, '/api/sessions/raft-consensus/context-config']) {
      const response = await request(path, {
        method: 'PUT',
        headers: { ...(path === file ? {} : { 'If-Match': '*' }), 'content-type': 'application/json' },
        body: invalid,
      });
      expect(response.status, path).toBe(400);
      expect(await errorOf(response), path).toMatchObject({ code: 'parse-error' });
    }
    // A lone surrogate is valid JSON (an escape) but no UTF-8 text.
    const lone = await request(file, { method: 'PUT', ...text('half \ud800 a pair') });
    expect(lone.status).toBe(400);
    expect(await errorOf(lone)).toMatchObject({ code: 'invalid-argument' });
    expect((await request(file)).status).toBe(404);
  });

  it('previews with a draft query and resolves its references', async () => {
    const query = encodeURIComponent('解释一下 [guidance.md#教学指南：Raft 共识/练习题]');
    const body = (await (
      await request(`/api/sessions/raft-consensus/context-preview?query=${query}`)
    ).json()) as {
      references: { path: string; block?: string }[];
      report: { layers: { layer: string }[] };
    };
    expect(body.references).toContainEqual(
      expect.objectContaining({ path: 'guidance.md', block: '教学指南：Raft 共识/练习题' }),
    );
    expect(body.report.layers.map((layer) => layer.layer)).toContain('query');
  });

  it('compresses older history into compression.json and the preview uses it', async () => {
    const response = await request('/api/sessions/raft-consensus/compress', {
      method: 'POST',
      ...json({ keepLast: 2 }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      summary: { newlyCovered: number; notCovered: number; summary: { text: string; coveredCount: number } };
      tokensBefore: number;
      tokensAfter: number;
    };
    expect(body.summary.newlyCovered).toBeGreaterThan(5);
    expect(body.summary.summary.coveredCount).toBe(body.summary.newlyCovered);
    expect(body.summary.summary.text).toContain('Summary of messages 1–');
    expect(body.tokensAfter).toBeLessThan(body.tokensBefore);
    const preview = (await (await request('/api/sessions/raft-consensus/context-preview')).json()) as {
      report: { layers: { layer: string; tokens: number }[] };
    };
    const layers = Object.fromEntries(preview.report.layers.map((layer) => [layer.layer, layer.tokens]));
    expect(layers.compression__context).toBeGreaterThan(0);
    const nothing = await request('/api/sessions/raft-consensus/compress', {
      method: 'POST',
      ...json({ keepLast: 1000 }),
    });
    expect(nothing.status).toBe(200);
    expect(((await nothing.json()) as { summary: { requested: number } }).summary.requested).toBe(0);
  });

  it('excludes a message from memory and restores it', async () => {
    const excluded = await request('/api/sessions/raft-consensus/curation', {
      method: 'POST',
      ...json({ targetMessageIds: ['m002'], action: 'exclude', summary: '开场白' }),
    });
    expect(excluded.status).toBe(200);
    const session = (await (await request('/api/sessions/raft-consensus')).json()) as {
      messages: { id: string; metadata?: { memory?: { state: string } } }[];
    };
    expect(session.messages.find((message) => message.id === 'm002')?.metadata?.memory?.state).toBe(
      'excluded',
    );
    const unknown = await request('/api/sessions/raft-consensus/curation', {
      method: 'POST',
      ...json({ targetMessageIds: ['nope'], action: 'exclude' }),
    });
    expect(unknown.status).toBe(404);
  });
});

describe('chat route', () => {
  const chat = (text: string, id = 'user-1') =>
    request('/api/sessions/raft-consensus/chat', {
      method: 'POST',
      ...json({
        id: 'raft-consensus',
        trigger: 'submit-message',
        messages: [{ id, role: 'user', parts: [{ type: 'text', text }] }],
      }),
    });

  it('streams a UI message stream with the report after start and stores both messages once', async () => {
    const response = await chat('请 read guidance.md');
    expect(response.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const events = (await response.text())
      .split('\n\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice(6)) as { type: string });
    const types = events.map((event) => event.type);
    expect(types[0]).toBe('start');
    expect(types[1]).toBe('data-context-report');
    expect(types).toContain('tool-output-available');
    expect(types.at(-1)).toBe('finish');
    const stored = await readMessages(notebook.workspace.session('raft-consensus'));
    expect(stored.filter((message) => message.id === 'user-1')).toHaveLength(1);
    const tail = stored.slice(-4).map((message) => message.role);
    expect(tail).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(stored.at(-1)?.metadata?.partial).toBeUndefined();
  });

  it('refuses to store the same user message twice', async () => {
    await (await chat('hello', 'same')).text();
    const again = await chat('hello', 'same');
    expect(again.status).toBe(409);
    // An id stored before this server started (m001 of the example) is refused the same way.
    const old = await chat('hello', 'm001');
    expect(old.status).toBe(409);
    expect(await old.text()).toContain('already stored');
    const stored = await readMessages(notebook.workspace.session('raft-consensus'));
    expect(stored.filter((message) => message.id === 'm001')).toHaveLength(1);
  });

  it('refuses a body whose last message is not a user text', async () => {
    const response = await request('/api/sessions/raft-consensus/chat', {
      method: 'POST',
      ...json({ messages: [{ id: 'a', role: 'assistant', parts: [{ type: 'text', text: 'hi' }] }] }),
    });
    expect(response.status).toBe(400);
    expect((await errorOf(response)).path).toBe('messages.0');
  });

  it('stores the streamed text as a partial answer when the client disconnects mid-answer', async () => {
    const response = await chat('What is a term?', 'user-mid');
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let seen = '';
    while (!seen.includes('"text-delta"')) seen += decoder.decode((await reader.read()).value);
    await reader.cancel();
    const sandbox = notebook.workspace.session('raft-consensus');
    await expect.poll(async () => (await readMessages(sandbox)).at(-1)?.metadata?.partial).toBe(true);
    const last = (await readMessages(sandbox)).at(-1)!;
    expect(last.role).toBe('assistant');
    expect(JSON.stringify(last.content)).toContain('offline model');
  });

  it('stores a partial assistant message when the client disconnects before the compile ends', async () => {
    const response = await chat('What is a term?', 'user-cut');
    const reader = response.body!.getReader();
    await reader.read();
    await reader.cancel();
    await expect
      .poll(
        async () =>
          (await readMessages(notebook.workspace.session('raft-consensus'))).at(-1)?.metadata?.partial,
      )
      .toBe(true);
    const stored = await readMessages(notebook.workspace.session('raft-consensus'));
    expect(stored.filter((message) => message.id === 'user-cut')).toHaveLength(1);
  });
});

describe('token', () => {
  it('requires Authorization: Bearer when a token is set', async () => {
    const guarded = await createTestNotebook({ token: 's3cret' });
    try {
      const missing = await guarded.app.request('/api/sessions');
      expect(missing.status).toBe(401);
      expect((await errorOf(missing)).code).toBe('unauthorized');
      const wrong = await guarded.app.request('/api/sessions', { headers: { Authorization: 'Bearer nope' } });
      expect(wrong.status).toBe(401);
      const right = await guarded.app.request('/api/sessions', {
        headers: { Authorization: 'Bearer s3cret' },
      });
      expect(right.status).toBe(200);
    } finally {
      await guarded.cleanup();
    }
  });
});
