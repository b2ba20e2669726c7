import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { simulateReadableStream } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteSaver } from '../runtime/checkpoint/sqlite-saver.ts';
import { createCheckpointSessionStore, createFileSessionStore, type SessionStore } from '../session/index.ts';
import { createTestNotebook } from './test-workspace.test-support.ts';

const SESSION = 'raft-consensus';
const FINISH: LanguageModelV4StreamPart = {
  type: 'finish',
  finishReason: { unified: 'stop', raw: 'stop' },
  usage: {
    inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 1, text: 1, reasoning: 0 },
  },
};
const text = (words: string): LanguageModelV4StreamPart[] => [
  { type: 'stream-start', warnings: [] },
  { type: 'text-start', id: 't' },
  { type: 'text-delta', id: 't', delta: words },
  { type: 'text-end', id: 't' },
  FINISH,
];

/**
 * A scripted model: answers the first turn, then in the second calls `dismiss_memory` on the
 * first question and answers after the tool result.
 */
function dismissingModel() {
  const script: LanguageModelV4StreamPart[][] = [
    text('Quorum means a majority.'),
    [
      { type: 'stream-start', warnings: [] },
      {
        type: 'tool-call',
        toolCallId: 'call-dismiss',
        toolName: 'dismiss_memory',
        input: JSON.stringify({ targetMessageId: 'u-1', summary: 'asked what a quorum is' }),
      },
      { ...FINISH, finishReason: { unified: 'tool-calls', raw: 'tool-calls' } } as LanguageModelV4StreamPart,
    ],
    text('Dismissed the old question.'),
  ];
  let call = 0;
  return new MockLanguageModelV4({
    doStream: async () => ({ stream: simulateReadableStream({ chunks: script[call++] ?? text('done') }) }),
  });
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The store under test; `undefined`: the app's default, the workspace files. */
const STORES = {
  files: async () => undefined,
  sqlite: async () => {
    const directory = await mkdtemp(join(tmpdir(), 'ctxloom-dismiss-'));
    const saver = new SqliteSaver({ path: join(directory, 'sessions.db'), durability: 'normal' });
    const store = createCheckpointSessionStore({ saver, kind: 'sqlite' });
    cleanups.push(async () => {
      await store.close();
      await saver.close();
      await rm(directory, { recursive: true, force: true });
    });
    return store;
  },
} satisfies Record<string, () => Promise<SessionStore | undefined>>;

describe.each(Object.keys(STORES) as (keyof typeof STORES)[])(
  "the model's dismiss_memory in a notebook chat on the %s store",
  (kind) => {
    it('stores the dismissal in the session store, and the next compile shows the placeholder', async () => {
      const checkpoints = await STORES[kind]();
      const notebook = await createTestNotebook({
        model: { model: dismissingModel(), spec: 'scripted', offline: false },
        ...(checkpoints === undefined ? {} : { store: checkpoints }),
      });
      cleanups.push(notebook.cleanup);
      const store = checkpoints ?? createFileSessionStore({ workspace: notebook.workspace });
      const memoryFile = join(notebook.root, SESSION, 'memory.json');
      const memoryBefore = await readFile(memoryFile, 'utf8');
      const chat = async (id: string, question: string) => {
        const response = await notebook.app.request(`/api/sessions/${SESSION}/chat`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            messages: [{ id, role: 'user', parts: [{ type: 'text', text: question }] }],
          }),
        });
        expect(response.status).toBe(200);
        return response.text();
      };

      await chat('u-1', 'What is a quorum?');
      const wire = await chat('u-2', 'Forget my first question, please.');
      expect(wire).toContain('dismissed u-1');

      const curation = (await store.load(SESSION)).curation;
      expect(curation.at(-1)).toMatchObject({
        type: 'dismiss',
        targetMessageId: 'u-1',
        summary: 'asked what a quorum is',
        by: 'model',
        toolCallId: 'call-dismiss',
      });
      // The files store keeps it in memory.json; a checkpoint store leaves the file alone.
      const memoryAfter = await readFile(memoryFile, 'utf8');
      if (kind === 'files') expect(memoryAfter).toContain('call-dismiss');
      else expect(memoryAfter).toBe(memoryBefore);

      const session = (await (await notebook.app.request(`/api/sessions/${SESSION}`)).json()) as {
        messages: { id: string; metadata?: { memory?: { state: string; by: string } } }[];
      };
      expect(session.messages.find((message) => message.id === 'u-1')?.metadata?.memory).toMatchObject({
        state: 'dismissed',
        by: 'model',
      });
      const preview = (await (
        await notebook.app.request(`/api/sessions/${SESSION}/context-preview`)
      ).json()) as {
        messages: { id: string; content: unknown }[];
      };
      const sent = JSON.stringify(preview.messages.find((message) => message.id === 'u-1')?.content);
      expect(sent).toContain('asked what a quorum is');
      expect(sent).not.toContain('What is a quorum?');
    });
  },
);
