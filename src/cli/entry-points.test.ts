import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Message } from '../core/index.ts';
import { createNotebookApp } from '../server/create-notebook-app.ts';
import { startFakeOpenAiProvider } from '../session/fake-openai-provider.test-support.ts';
import { openWorkspace } from '../workspace/index.ts';
import { runMcp } from './commands/mcp.ts';
import { createBufferIo } from './io.ts';
import { main } from './main.ts';
import { openSessionEngine } from './open-session-engine.ts';

const EXAMPLE = fileURLToPath(new URL('../../examples/notebook', import.meta.url));
const SESSION = 'raft-consensus';
const QUESTION = 'What is a term in Raft?';

/** An MCP client transport over a child's stdio, here two in-process streams. */
class StreamClientTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly #buffer = new ReadBuffer();
  readonly input: PassThrough;
  readonly output: PassThrough;
  constructor(input: PassThrough, output: PassThrough) {
    this.input = input;
    this.output = output;
  }
  async start() {
    this.input.on('data', (chunk: Buffer) => {
      this.#buffer.append(chunk);
      for (let message = this.#buffer.readMessage(); message !== null; message = this.#buffer.readMessage()) {
        this.onmessage?.(message);
      }
    });
  }
  async send(message: JSONRPCMessage) {
    this.output.write(serializeMessage(message));
  }
  async close() {
    this.output.end();
    this.onclose?.();
  }
}

type Body = { messages: Array<{ role: string; content: unknown }> };

describe('ctxloom serve, chat and mcp: one engine set-up', () => {
  let provider: Awaited<ReturnType<typeof startFakeOpenAiProvider>>;
  const roots: string[] = [];

  beforeAll(async () => {
    provider = await startFakeOpenAiProvider(['ok']);
    vi.stubEnv('CTXLOOM_MODEL', `openai-compatible:${provider.baseURL}#fake`);
    for (let index = 0; index < 3; index++) {
      const root = await mkdtemp(join(tmpdir(), 'ctxloom-entry-'));
      await cp(EXAMPLE, root, { recursive: true });
      roots.push(root);
    }
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await provider.close();
    for (const root of roots) await rm(root, { recursive: true, force: true });
  });

  /** The bodies the provider receives while `run` runs. */
  async function received(run: () => Promise<unknown>): Promise<Body[]> {
    const from = provider.bodies.length;
    await run();
    return provider.bodies.slice(from) as Body[];
  }

  /** What `ctxloom serve` does: the CLI's engine set-up behind the notebook app. */
  async function viaServe(root: string) {
    const workspace = openWorkspace({ root });
    const opened = await openSessionEngine({ workspace, cwd: root, stderr: () => {}, errorLines: true });
    const app = createNotebookApp({
      workspace,
      engine: opened.engine,
      subscribeStore: opened.subscribeStore,
      model: opened.model,
    });
    const post = (text: string, id: string) =>
      app.request(`/api/sessions/${SESSION}/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ messages: [{ id, role: 'user', parts: [{ type: 'text', text }] }] }),
      });
    try {
      const turn = await received(async () => (await post(QUESTION, 'q-1')).text());
      const compress = await received(async () => (await post('/compress', 'c-1')).text());
      const preview = (await (await app.request(`/api/sessions/${SESSION}/context-preview`)).json()) as {
        messages: Message[];
      };
      return { turn, compress, messages: preview.messages };
    } finally {
      await opened.close();
    }
  }

  async function viaChat(root: string) {
    const run = (...args: string[]) => {
      const buffer = createBufferIo({ cwd: root });
      return main(args, buffer.io).then((code) => ({ code, out: buffer.out() }));
    };
    const turn = await received(async () => expect((await run('chat', SESSION, QUESTION)).code).toBe(0));
    const compress = await received(async () =>
      expect((await run('chat', SESSION, '/compress')).code).toBe(0),
    );
    const compiled = await run('compile', SESSION, '--format', 'json');
    return { turn, compress, messages: (JSON.parse(compiled.out) as { messages: Message[] }).messages };
  }

  async function viaMcp(root: string) {
    const toServer = new PassThrough();
    const fromServer = new PassThrough();
    const buffer = createBufferIo({ cwd: root });
    const running = runMcp([root, '--session', SESSION], {
      ...buffer.io,
      stdin: toServer,
      stdoutStream: fromServer,
    });
    const client = new Client({ name: 'entry-points', version: '1.0.0' });
    await client.connect(new StreamClientTransport(fromServer, toServer));
    const send = (text: string) => client.callTool({ name: 'send_message', arguments: { text } });
    const turn = await received(() => send(QUESTION));
    const compress = await received(() => send('/compress'));
    const resource = await client.readResource({ uri: 'ctxloom://preview' });
    await client.close();
    toServer.end();
    expect(await running).toBe(0);
    const messages = (JSON.parse((resource.contents[1] as { text: string }).text) as { messages: Message[] })
      .messages;
    return { turn, compress, messages };
  }

  it('sends the provider the same bytes, summarises /compress with the same model, and previews the same call', async () => {
    const serve = await viaServe(roots[0] as string);
    const chat = await viaChat(roots[1] as string);
    const mcp = await viaMcp(roots[2] as string);

    expect(serve.turn.length).toBeGreaterThan(0);
    expect(chat.turn).toEqual(serve.turn);
    expect(mcp.turn).toEqual(serve.turn);
    // /compress asks the session's model for the summary from every entry point (not the extractive one).
    expect(serve.compress.length).toBeGreaterThan(0);
    expect(chat.compress).toEqual(serve.compress);
    expect(mcp.compress).toEqual(serve.compress);
    const summaries = await Promise.all(
      roots.map(async (root) => {
        const stored = JSON.parse(await readFile(join(root, SESSION, 'compression.json'), 'utf8')) as {
          summary: { text: string; summarizer: string };
        };
        return stored.summary;
      }),
    );
    expect(summaries[0]?.summarizer).toContain('openai-compatible:');
    expect(summaries[0]?.text).toContain('A term is a logical clock.');
    expect(summaries[1]).toMatchObject({ text: summaries[0]?.text, summarizer: summaries[0]?.summarizer });
    expect(summaries[2]).toMatchObject({ text: summaries[0]?.text, summarizer: summaries[0]?.summarizer });

    // The next call as each entry point previews it: the same text (ids and times are each store's own).
    const sent = (messages: readonly Message[]) => messages.map(({ role, content }) => ({ role, content }));
    expect(serve.messages.length).toBeGreaterThan(3);
    expect(JSON.stringify(serve.messages)).toContain('A term is a logical clock.');
    expect(sent(chat.messages)).toEqual(sent(serve.messages));
    expect(sent(mcp.messages)).toEqual(sent(serve.messages));
  });

  it('refuses an engine option beside a ready engine (the engine has its own)', async () => {
    const workspace = openWorkspace({ root: roots[0] as string });
    const opened = await openSessionEngine({ workspace, cwd: roots[0] as string });
    try {
      expect(() =>
        createNotebookApp({ workspace, engine: opened.engine, store: opened.store, model: opened.model }),
      ).toThrow(expect.objectContaining({ code: 'invalid-config', path: 'store' }));
    } finally {
      await opened.close();
    }
  });
});
