import type { LanguageModelV4CallOptions, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { simulateReadableStream, type UIMessageChunk } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBufferIo } from '../cli/io.ts';
import { main } from '../cli/main.ts';
import { createTestNotebook } from '../server/test-workspace.test-support.ts';
import { type BadReference, badReferencesOf } from '../workspace/index.ts';
import { createSessionEngine } from './create-session-engine.ts';
import { createFileSessionStore } from './file-session-store.ts';

const SESSION = 'raft-consensus';
/** The example manifest's `references`, as recorded on the message that carries them. */
const MANIFEST_KEYS = [
  '[ground-truth.md#Raft 知识要点（ground truth）/领导者选举/选举限制]',
  '[guidance.md:40:44]',
];
/** The source attribute of its passage (unquoted: the prompts are compared as JSON text). */
const GUIDANCE_PASSAGE = 'guidance.md:40-44';

let notebook: Awaited<ReturnType<typeof createTestNotebook>>;
beforeEach(async () => {
  notebook = await createTestNotebook();
});
afterEach(async () => {
  await notebook.cleanup();
});

function textModel() {
  const chunks: LanguageModelV4StreamPart[] = [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: 't' },
    { type: 'text-delta', id: 't', delta: 'An answer.' },
    { type: 'text-end', id: 't' },
    {
      type: 'finish',
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: {
        inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: 1, text: 1, reasoning: 0 },
      },
    },
  ];
  return new MockLanguageModelV4({ doStream: async () => ({ stream: simulateReadableStream({ chunks }) }) });
}

function engineWith(model: MockLanguageModelV4) {
  let next = 0;
  return createSessionEngine({
    workspace: notebook.workspace,
    store: createFileSessionStore({ workspace: notebook.workspace }),
    model: { model, spec: 'recording', offline: false },
    createId: () => `t-${++next}`,
    now: () => new Date('2026-03-01T10:00:00.000Z'),
  });
}

async function drain(stream: ReadableStream<UIMessageChunk>): Promise<void> {
  for await (const _chunk of stream);
}

const promptOf = (model: MockLanguageModelV4, call: number) =>
  JSON.stringify((model.doStreamCalls[call] as LanguageModelV4CallOptions).prompt);
const count = (text: string, part: string) => text.split(part).length - 1;

const TWO_BAD = 'compare [nope.md:1:3] with [guidance.md:999:1000] please';

describe('a message with bad references', () => {
  it('is refused before anything is stored, with every bad reference named', async () => {
    const model = textModel();
    const engine = engineWith(model);
    const before = await engine.store.load(SESSION);
    const callsBefore = (await engine.listCalls(SESSION)).length;
    const error = await engine.runTurn({ sessionId: SESSION, text: TWO_BAD, messageId: 'u-bad' }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    const bad = badReferencesOf(error) ?? [];
    expect(bad).toEqual([
      expect.objectContaining({
        raw: '[nope.md:1:3]',
        path: 'nope.md',
        startLine: 1,
        endLine: 3,
        reason: 'missing-file',
        offset: TWO_BAD.indexOf('[nope'),
      }),
      expect.objectContaining({
        raw: '[guidance.md:999:1000]',
        path: 'guidance.md',
        startLine: 999,
        endLine: 1000,
        reason: 'lines-out-of-range',
        offset: TWO_BAD.indexOf('[guidance'),
      }),
    ]);
    expect(model.doStreamCalls).toHaveLength(0);
    expect((await engine.store.load(SESSION)).messages).toEqual(before.messages);
    expect(await engine.listCalls(SESSION)).toHaveLength(callsBefore);
  });

  it('is answered 422 by the chat route with the list, and printed in full by ctxloom chat', async () => {
    const response = await notebook.app.request(`/api/sessions/${SESSION}/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        messages: [{ id: 'u-bad', role: 'user', parts: [{ type: 'text', text: TWO_BAD }] }],
      }),
    });
    expect(response.status).toBe(422);
    const body = (await response.json()) as { error: { code: string; references: BadReference[] } };
    expect(body.error.code).toBe('invalid-reference');
    expect(body.error.references.map((reference) => [reference.raw, reference.reason])).toEqual([
      ['[nope.md:1:3]', 'missing-file'],
      ['[guidance.md:999:1000]', 'lines-out-of-range'],
    ]);
    const state = await createFileSessionStore({ workspace: notebook.workspace }).load(SESSION);
    expect(state.messages.some((message) => message.id === 'u-bad')).toBe(false);

    const run = createBufferIo({ cwd: notebook.root });
    expect(await main(['chat', SESSION, TWO_BAD], run.io)).toBe(1);
    expect(run.err()).toContain('invalid-reference');
    expect(run.err()).toContain('[nope.md:1:3]');
    expect(run.err()).toContain('[guidance.md:999:1000]');
    expect(run.err()).toContain('it has');
  });
});

describe("the manifest's references", () => {
  it('go with exactly one message over three turns, recorded on it, and no longer show as pending', async () => {
    const model = textModel();
    const engine = engineWith(model);
    const pending = await engine.compile(SESSION);
    expect(pending.queryMessage?.metadata?.manifestReferences).toEqual(MANIFEST_KEYS);
    expect(count(JSON.stringify(pending.messages.at(-1)), GUIDANCE_PASSAGE)).toBe(1);

    for (const [index, text] of ['first question', 'second question', 'third question'].entries()) {
      const turn = await engine.runTurn({ sessionId: SESSION, text, messageId: `u-${index + 1}` });
      await drain(turn.stream);
      await turn.stored;
    }
    expect(model.doStreamCalls).toHaveLength(3);
    expect([0, 1, 2].map((call) => count(promptOf(model, call), GUIDANCE_PASSAGE))).toEqual([1, 0, 0]);
    expect([0, 1, 2].map((call) => count(promptOf(model, call), 'block=\\"Raft'))).toEqual([1, 0, 0]);

    const stored = (await engine.store.load(SESSION)).messages.filter((message) =>
      ['u-1', 'u-2', 'u-3'].includes(message.id),
    );
    expect(stored.map((message) => message.metadata?.manifestReferences)).toEqual([
      MANIFEST_KEYS,
      undefined,
      undefined,
    ]);
    expect(stored[0]?.metadata?.references).toHaveLength(2);
    expect(stored.slice(1).map((message) => message.metadata?.references)).toEqual([undefined, undefined]);

    // The preview's pending message (the manifest's query) no longer carries them.
    const after = await engine.compile(SESSION);
    expect(after.queryMessage?.metadata?.manifestReferences).toBeUndefined();
    expect(JSON.stringify(after.messages.at(-1))).not.toContain(GUIDANCE_PASSAGE);
  });

  it('are injected once when the message names one of them inline too', async () => {
    const model = textModel();
    const engine = engineWith(model);
    const turn = await engine.runTurn({
      sessionId: SESSION,
      text: 'what does [guidance.md:40:44] mean, and [guidance.md:41:42]?',
      messageId: 'u-1',
    });
    await drain(turn.stream);
    expect(count(promptOf(model, 0), '<reference source=')).toBe(2);
    expect(count(promptOf(model, 0), GUIDANCE_PASSAGE)).toBe(1);
    expect(turn.compiled?.references.map((reference) => reference.path)).toEqual([
      'guidance.md',
      'ground-truth.md',
    ]);
  });
});
