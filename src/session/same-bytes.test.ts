import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBufferIo } from '../cli/io.ts';
import { main } from '../cli/main.ts';
import { formatReport, type Message } from '../core/index.ts';
import { createOfflineModel } from '../llm/index.ts';
import { createWorkspaceMcpServer } from '../mcp/index.ts';
import { createNotebookApp } from '../server/create-notebook-app.ts';
import { createTestNotebook } from '../server/test-workspace.test-support.ts';
import { copySession } from './copy-session.ts';
import { createSessionEngine } from './create-session-engine.ts';
import { createFileSessionStore } from './file-session-store.ts';
import { type OpenedSessionStore, openSessionStore } from './open-session-store.ts';

const SESSION = 'raft-consensus';

const json = (body: unknown) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

describe.each(['files', 'sqlite'] as const)('one session, the same bytes everywhere (%s store)', (kind) => {
  let notebook: Awaited<ReturnType<typeof createTestNotebook>>;
  let store: OpenedSessionStore;
  let storeArgs: string[];
  let app: Hono;

  beforeAll(async () => {
    notebook = await createTestNotebook();
    const { workspace } = notebook;
    if (kind === 'files') {
      store = await openSessionStore('files', { workspace });
      storeArgs = [];
    } else {
      const path = join(notebook.root, 'sessions.db');
      store = await openSessionStore(`sqlite:${path}`, { workspace });
      await copySession({ from: createFileSessionStore({ workspace }), to: store, sessionId: SESSION });
      storeArgs = ['--store', `sqlite:${path}`];
    }
    let next = 0;
    app = createNotebookApp({
      workspace,
      store,
      model: { model: createOfflineModel(), spec: 'offline', offline: true },
      now: () => new Date('2026-03-01T10:00:00.000Z'),
      createId: () => `id-${++next}`,
    });
  });
  afterAll(async () => {
    await store.close();
    await notebook.cleanup();
  });

  /** The messages every entry point would send for the session's next call. */
  async function compileEverywhere() {
    const preview = (await (await app.request(`/api/sessions/${SESSION}/context-preview`)).json()) as {
      messages: Message[];
      report: { totalTokens: number };
    };
    const compileRun = createBufferIo({ cwd: notebook.root });
    expect(await main(['compile', SESSION, '--format', 'json', ...storeArgs], compileRun.io)).toBe(0);
    const cli = JSON.parse(compileRun.out()) as {
      messages: Message[];
      report: Parameters<typeof formatReport>[0];
    };
    const previewRun = createBufferIo({ cwd: notebook.root });
    expect(await main(['preview', SESSION, '--no-color', ...storeArgs], previewRun.io)).toBe(0);

    const server = createWorkspaceMcpServer({
      workspace: notebook.workspace,
      sessionId: SESSION,
      engine: createSessionEngine({ workspace: notebook.workspace, store }),
    });
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'same-bytes', version: '1.0.0' });
    await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
    const resource = await client.readResource({ uri: 'ctxloom://preview' });
    await client.close();
    const mcp = JSON.parse((resource.contents[1] as { text: string }).text) as { messages: Message[] };
    const library = await createSessionEngine({ workspace: notebook.workspace, store }).compile(SESSION);
    return {
      preview,
      cli,
      library,
      previewText: previewRun.out(),
      mcpText: (resource.contents[0] as { text: string }).text,
      mcp,
    };
  }

  it('compiles identical messages after /compress, after curating a covered and an uncovered message, with references', async () => {
    // /compress typed in the chat is a command, not text for the model.
    const compress = await app.request(
      `/api/sessions/${SESSION}/chat`,
      json({ messages: [{ id: 'cmd-1', role: 'user', parts: [{ type: 'text', text: '/compress' }] }] }),
    );
    expect(compress.status).toBe(200);
    expect(await compress.text()).toContain('older messages summarised');

    const state = await store.load(SESSION);
    const summary = state.compression.summary;
    expect(summary).not.toBeNull();
    const covered = state.messages.find((message) => message.role === 'user');
    const uncovered = state.messages.filter((message) => message.role === 'assistant').at(-2);
    expect(covered?.id).toBe(summary?.fromMessageId);
    for (const target of [covered, uncovered]) {
      const response = await app.request(
        `/api/sessions/${SESSION}/curation`,
        json({ targetMessageIds: [target?.id], action: 'exclude' }),
      );
      expect(response.status).toBe(200);
    }

    const { preview, cli, library, previewText, mcpText, mcp } = await compileEverywhere();
    expect(preview.messages.length).toBeGreaterThan(3);
    expect(cli.messages).toEqual(preview.messages);
    expect(mcp.messages).toEqual(preview.messages);
    expect(JSON.parse(JSON.stringify(library.messages))).toEqual(preview.messages);
    // The references of the manifest's query are in the one user message at the end.
    expect(JSON.stringify(preview.messages.at(-1)?.content)).toContain('ground-truth.md');
    // The summary's covered messages are out; the summary is in compression__context.
    expect(preview.messages.some((message) => message.id === covered?.id)).toBe(false);
    expect(JSON.stringify(preview.messages)).toContain('Summary of messages 1–');
    // The text reports agree with the JSON one (same totals, same layers).
    const report = formatReport(cli.report, { color: false });
    expect(previewText).toContain(report);
    expect(mcpText).toContain(report);
    expect(cli.report.totalTokens).toBe(preview.report.totalTokens);
  });
});
