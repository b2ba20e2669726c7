import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { UIMessageChunk } from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CtxloomError } from '../core/index.ts';
import { createTestNotebook } from '../server/test-workspace.test-support.ts';
import { toUiMessages } from '../stream/index.ts';
import { createSessionEngine } from './create-session-engine.ts';
import { type FakeReply, startFakeOpenAiProvider } from './fake-openai-provider.test-support.ts';
import { createFileSessionStore } from './file-session-store.ts';
import type { ModelErrorEvent } from './session-engine.ts';

const SESSION = 'raft-consensus';
let notebook: Awaited<ReturnType<typeof createTestNotebook>>;
beforeEach(async () => {
  notebook = await createTestNotebook();
});
afterEach(async () => {
  await notebook.cleanup();
});

async function readAll(stream: ReadableStream<UIMessageChunk>) {
  const chunks: UIMessageChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

/** The engine over a real HTTP provider, as `CTXLOOM_MODEL=openai-compatible:…` builds it. */
function engineOver(baseURL: string, modelTimeoutMs?: number) {
  const model = createOpenAICompatible({ name: 'fake', baseURL }).chatModel('fake');
  const failures: ModelErrorEvent[] = [];
  let next = 0;
  const engine = createSessionEngine({
    workspace: notebook.workspace,
    store: createFileSessionStore({ workspace: notebook.workspace }),
    model: { model, spec: 'openai-compatible:fake', offline: false },
    createId: () => `t-${++next}`,
    onModelError: (event) => failures.push(event),
    ...(modelTimeoutMs === undefined ? {} : { modelTimeoutMs }),
  });
  return { engine, failures };
}

// The SDK tries a 429 or 500 three times (two retries) before the turn fails; a stream is tried once.
const CASES: Array<{ reply: FakeReply; failures: number; says: RegExp; reason: string }> = [
  {
    reply: '429',
    failures: 3,
    says: /Rate limit reached for requests \(HTTP 429, after 3 attempts\)/u,
    reason: 'provider',
  },
  {
    reply: '500',
    failures: 3,
    says: /The server had an error \(HTTP 500, after 3 attempts\)/u,
    reason: 'provider',
  },
  { reply: 'bad-json', failures: 1, says: /its reply is not valid JSON/u, reason: 'invalid-response' },
  { reply: 'hang', failures: 1, says: /sent nothing for 300 ms \(modelTimeoutMs\)/u, reason: 'timeout' },
];

describe('a failing provider (real HTTP, @ai-sdk/openai-compatible)', () => {
  for (const { reply, failures: attempts, says, reason } of CASES) {
    it(`stores a ${reply} as the turn's error, resends nothing of it, and the same question then runs`, async () => {
      const provider = await startFakeOpenAiProvider([...Array<FakeReply>(attempts).fill(reply), 'ok']);
      try {
        // Only the hanging provider should meet the timeout, however slow the machine.
        const { engine, failures } = engineOver(provider.baseURL, reply === 'hang' ? 300 : 60_000);
        const turn = await engine.runTurn({ sessionId: SESSION, text: 'What is a term?', messageId: 'u-1' });
        const chunks = await readAll(turn.stream);
        const errors = chunks.filter((chunk) => chunk.type === 'error');
        // One typed, one-line error in the stream, then `finish` after it is stored.
        expect(errors).toHaveLength(1);
        expect(errors[0]).toMatchObject({ errorText: expect.stringMatching(says) });
        expect(errors[0]?.type === 'error' && errors[0].errorText).not.toContain('\n');
        expect(chunks.at(-1)?.type).toBe('finish');
        expect(failures).toHaveLength(1);
        expect(CtxloomError.is(failures[0]?.error, 'model-error')).toBe(true);
        expect(failures[0]?.error.details).toMatchObject({ reason });
        expect(failures[0]?.turnId).toBe('u-1');
        expect(provider.bodies).toHaveLength(attempts);

        // Stored: the question, then the error record (no model message); a reload shows the error.
        const stored = await turn.stored;
        expect(stored).toHaveLength(1);
        expect(stored[0]?.content).toBe('');
        expect(stored[0]?.metadata?.turnError).toMatchObject({ code: 'model-error', turnId: 'u-1' });
        const state = await engine.store.load(SESSION);
        const ui = toUiMessages(state.messages).at(-1);
        expect(ui?.metadata?.error?.message).toMatch(says);
        expect(ui?.metadata?.partial).toBeUndefined();
        expect(ui?.parts).toEqual([]);

        // The same question again: the provider is sent it once, no empty assistant message.
        const requestsBefore = provider.bodies.length;
        const again = await engine.runTurn({ sessionId: SESSION, text: 'What is a term?', messageId: 'u-2' });
        const answer = await readAll(again.stream);
        expect(answer.some((chunk) => chunk.type === 'error')).toBe(false);
        expect((await again.stored)[0]?.content).toEqual([
          { type: 'text', text: 'A term is a logical clock.' },
        ]);
        const sent = provider.bodies.slice(requestsBefore).at(-1)?.messages ?? [];
        expect(sent.filter((message) => message.role === 'assistant' && message.content === '')).toEqual([]);
        expect(sent.filter((message) => message.content === 'What is a term?')).toHaveLength(1);
        expect(JSON.stringify(sent)).not.toMatch(says);
      } finally {
        await provider.close();
      }
    });
  }

  it('refuses a modelTimeoutMs outside 1..3600000 before anything is stored', async () => {
    const provider = await startFakeOpenAiProvider(['ok']);
    try {
      const { engine } = engineOver(provider.baseURL, 0);
      await expect(engine.runTurn({ sessionId: SESSION, text: 'What is a term?' })).rejects.toMatchObject({
        code: 'invalid-config',
        path: 'modelTimeoutMs',
      });
      const state = await engine.store.load(SESSION);
      expect(state.messages.some((message) => message.content === 'What is a term?')).toBe(false);
    } finally {
      await provider.close();
    }
  });
});
