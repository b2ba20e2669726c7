import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteSaver } from '../../runtime/checkpoint/sqlite-saver.ts';
import { createCheckpointSessionStore } from '../../session/index.ts';
import { createTestNotebook } from '../test-workspace.test-support.ts';

type Notebook = Awaited<ReturnType<typeof createTestNotebook>>;
let notebook: Notebook;
beforeEach(async () => {
  notebook = await createTestNotebook();
});
afterEach(() => notebook.cleanup());

async function open(sessionId: string) {
  const controller = new AbortController();
  const response = await notebook.app.request(`/api/sessions/${sessionId}/events`, {
    signal: controller.signal,
  });
  expect(response.headers.get('content-type')).toContain('text/event-stream');
  const reader = (response.body as ReadableStream<Uint8Array>)
    .pipeThrough(new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>)
    .pipeThrough(new EventSourceParserStream())
    .getReader();
  const next = async () => {
    const { value } = await reader.read();
    return value;
  };
  return { next, close: () => controller.abort() };
}

describe('events route', () => {
  it('pushes a change event when a session file or a global file changes, without polling', async () => {
    const events = await open('raft-consensus');
    try {
      expect((await events.next())?.event).toBe('ready');
      await writeFile(join(notebook.root, 'raft-consensus', 'guidance.md'), '# 改了\n');
      const change = await events.next();
      expect(change?.event).toBe('change');
      expect(JSON.parse(change?.data ?? '{}').paths).toContain('guidance.md');
      await writeFile(join(notebook.root, 'profile.md'), '# 新档案\n');
      expect(JSON.parse((await events.next())?.data ?? '{}').paths).toContain('profile.md');
    } finally {
      events.close();
    }
  });

  it('reports a session created, renamed or deleted elsewhere as a sessions.json change', async () => {
    const events = await open('raft-consensus');
    try {
      await events.next();
      const created = await notebook.app.request('/api/sessions', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ concept: 'Paxos' }),
      });
      expect(created.status).toBe(201);
      expect(JSON.parse((await events.next())?.data ?? '{}').paths).toContain('sessions.json');
    } finally {
      events.close();
    }
  });

  it('reports changes made through the API, and hides temp files of atomic writes', async () => {
    const events = await open('raft-consensus');
    try {
      await events.next();
      const response = await notebook.app.request('/api/sessions/raft-consensus/files/new.md', {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text: 'x' }),
      });
      expect(response.status).toBe(200);
      const paths = JSON.parse((await events.next())?.data ?? '{}').paths as string[];
      expect(paths).toContain('new.md');
      expect(paths.some((path) => path.endsWith('.ctxloom-tmp'))).toBe(false);
    } finally {
      events.close();
    }
  });

  it('keeps reporting a file that atomic writes replace again and again', async () => {
    const events = await open('raft-consensus');
    try {
      await events.next();
      for (const action of ['exclude', 'restore', 'exclude']) {
        await notebook.app.request('/api/sessions/raft-consensus/curation', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ targetMessageIds: ['m003'], action }),
        });
        expect(JSON.parse((await events.next())?.data ?? '{}').paths).toContain('memory.json');
      }
    } finally {
      events.close();
    }
  });

  it('reports what this process stores in a checkpoint store, which changes no file', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'ctxloom-events-'));
    const saver = new SqliteSaver({ path: join(directory, 'sessions.db'), durability: 'normal' });
    const store = createCheckpointSessionStore({ saver, kind: 'sqlite' });
    await notebook.cleanup();
    notebook = await createTestNotebook({ store });
    const events = await open('raft-consensus');
    try {
      await events.next();
      const chat = await notebook.app.request('/api/sessions/raft-consensus/chat', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          messages: [{ id: 'u-1', role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
        }),
      });
      await chat.text();
      // The question, then the answer.
      for (let answer = 0; answer < 2; answer++)
        expect(JSON.parse((await events.next())?.data ?? '{}').paths).toEqual(['messages.json']);
      await notebook.app.request('/api/sessions/raft-consensus/curation', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ targetMessageIds: ['u-1'], action: 'exclude' }),
      });
      expect(JSON.parse((await events.next())?.data ?? '{}').paths).toEqual(['memory.json']);
    } finally {
      events.close();
      await store.close();
      await saver.close();
      await rm(directory, { recursive: true, force: true });
    }
  });

  it('refuses an unknown session before streaming', async () => {
    const response = await notebook.app.request('/api/sessions/nope/events');
    expect(response.status).toBe(404);
  });
});
