import type { LanguageModelV4 } from '@ai-sdk/provider';
import { afterEach, describe, expect, it } from 'vitest';
import { createOfflineModel } from '../../llm/index.ts';
import { createFileSessionStore, type SessionStore } from '../../session/index.ts';
import { createTestNotebook } from '../test-workspace.test-support.ts';

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
});

const body = (text: string, id: string) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({
    id: 'raft-consensus',
    trigger: 'submit-message',
    messages: [{ id, role: 'user', parts: [{ type: 'text', text }] }],
  }),
});

const events = (text: string) =>
  text
    .split('\n\n')
    .filter((line) => line.startsWith('data: {'))
    .map((line) => JSON.parse(line.slice(6)) as { type: string; errorText?: string });

describe('chat route with every compile slot taken', () => {
  it('sends headers and a start before the slot frees, then runs the turn; refusals come in the stream', async () => {
    const order: string[] = [];
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    // The first turn's compile holds the only slot until the gate opens (its store load waits).
    let held = false;
    const gated = (store: SessionStore): SessionStore => ({
      ...store,
      kind: store.kind,
      load: async (sessionId) => {
        if (!held) {
          held = true;
          order.push('slot taken');
          await gate;
          order.push('slot freed');
        }
        return store.load(sessionId);
      },
    });
    const notebook = await createTestNotebook({ maxConcurrentCompiles: 1 }, (workspace) =>
      gated(createFileSessionStore({ workspace })),
    );
    cleanup = notebook.cleanup;
    const first = notebook.app.request('/api/sessions/raft-consensus/chat', body('What is a term?', 'q-1'));
    while (!held) await new Promise((resolve) => setImmediate(resolve));

    const second = await notebook.app.request('/api/sessions/raft-consensus/chat', body('And a log?', 'q-2'));
    order.push('second headers');
    expect(second.status).toBe(200);
    expect(second.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    const reader = second.body?.getReader();
    const firstChunk = new TextDecoder().decode((await reader?.read())?.value);
    order.push('second start');
    expect(events(firstChunk)[0]?.type).toBe('start');
    // A third, refused by its compile (an id already stored), is refused inside its stream.
    const third = await notebook.app.request('/api/sessions/raft-consensus/chat', body('again', 'm001'));
    expect(third.status).toBe(200);
    open();

    let rest = '';
    for (let chunk = await reader?.read(); chunk !== undefined && !chunk.done; chunk = await reader?.read()) {
      rest += new TextDecoder().decode(chunk.value);
    }
    expect(order).toEqual(['slot taken', 'second headers', 'second start', 'slot freed']);
    const types = events(firstChunk + rest).map((event) => event.type);
    expect(types).toContain('data-context-report');
    expect(types.at(-1)).toBe('finish');
    // The first turn's stream read to its end: its `finish` comes after it is stored, so
    // nothing writes to the session's folder while the cleanup removes it.
    const firstResponse = await first;
    expect(firstResponse.status).toBe(200);
    expect(events(await firstResponse.text()).at(-1)?.type).toBe('finish');
    const refused = events(await third.text()).find((event) => event.type === 'error');
    expect(JSON.parse(refused?.errorText ?? '{}')).toMatchObject({ error: { code: 'conflict' } });
  });
});

describe('chat route beside a running compile', () => {
  it('sends headers and a start at once even when a compile slot is free', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    // Every store load waits for the gate: no compile can finish before it opens.
    let loads = 0;
    const gated = (store: SessionStore): SessionStore => ({
      ...store,
      kind: store.kind,
      load: async (sessionId) => {
        loads++;
        await gate;
        return store.load(sessionId);
      },
    });
    const notebook = await createTestNotebook({ maxConcurrentCompiles: 4 }, (workspace) =>
      gated(createFileSessionStore({ workspace })),
    );
    cleanup = notebook.cleanup;
    const first = notebook.app.request('/api/sessions/raft-consensus/chat', body('What is a term?', 'q-1'));
    while (loads === 0) await new Promise((resolve) => setImmediate(resolve));

    // Three slots are free, yet the second chat answers before any compile could finish.
    const second = await notebook.app.request('/api/sessions/raft-consensus/chat', body('And a log?', 'q-2'));
    expect(second.status).toBe(200);
    const reader = second.body?.getReader();
    const firstChunk = new TextDecoder().decode((await reader?.read())?.value);
    expect(events(firstChunk)[0]?.type).toBe('start');
    open();

    let rest = '';
    for (let chunk = await reader?.read(); chunk !== undefined && !chunk.done; chunk = await reader?.read()) {
      rest += new TextDecoder().decode(chunk.value);
    }
    const types = events(firstChunk + rest).map((event) => event.type);
    expect(types).toContain('data-context-report');
    expect(types.at(-1)).toBe('finish');
    // As above: the first turn stored before the cleanup removes the folder (a turn still
    // writing there made the removal fail with ENOTEMPTY on a loaded machine).
    const firstResponse = await first;
    expect(firstResponse.status).toBe(200);
    expect(events(await firstResponse.text()).at(-1)?.type).toBe('finish');
  });
});

describe('chat route with a turn waiting for its session', () => {
  it('holds no compile slot while it waits: another session compiles and answers meanwhile', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    // The first turn's answer streams only when the gate opens, so its session stays held.
    const offline = createOfflineModel();
    const model: LanguageModelV4 = {
      ...offline,
      async doStream(options) {
        if (JSON.stringify(options.prompt).includes('slow question')) await gate;
        return offline.doStream(options);
      },
    };
    const notebook = await createTestNotebook({
      maxConcurrentCompiles: 1,
      model: { model, spec: 'offline', offline: true },
    });
    cleanup = notebook.cleanup;
    const created = await notebook.app.request('/api/sessions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'other', concept: 'Other' }),
    });
    expect(created.status).toBe(201);

    const first = await notebook.app.request(
      '/api/sessions/raft-consensus/chat',
      body('slow question', 'q-1'),
    );
    expect(first.status).toBe(200);
    // The second turn of the same session waits for the first to store its answer; its
    // headers and `start` do not (before, they waited for the first turn's whole answer).
    const second = await notebook.app.request('/api/sessions/raft-consensus/chat', body('And a log?', 'q-2'));
    expect(second.status).toBe(200);
    const reader = second.body?.getReader();
    const secondStart = new TextDecoder().decode((await reader?.read())?.value);
    expect(events(secondStart)[0]?.type).toBe('start');
    // With the only slot free (the first turn's compile is done), a turn of another session
    // runs to its end while the second waits — before, the waiting turn held the slot.
    const other = await notebook.app.request('/api/sessions/other/chat', body('Hello?', 'o-1'));
    expect(events(await other.text()).at(-1)?.type).toBe('finish');

    open();
    expect(events(await first.text()).at(-1)?.type).toBe('finish');
    let rest = '';
    for (let chunk = await reader?.read(); chunk !== undefined && !chunk.done; chunk = await reader?.read()) {
      rest += new TextDecoder().decode(chunk.value);
    }
    expect(events(secondStart + rest).at(-1)?.type).toBe('finish');
  });
});
