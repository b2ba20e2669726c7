import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LanguageModelV4CallOptions, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import type { UIMessageChunk } from 'ai';
import { simulateReadableStream } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { countCallTokens } from '../ai-sdk/index.ts';
import { scriptedModel } from '../runtime/processes/mock-model.test-support.ts';
import { createTestNotebook } from '../server/test-workspace.test-support.ts';
import { getTokenCounter } from '../tokenizers/index.ts';
import { createSessionEngine } from './create-session-engine.ts';
import { createFileSessionStore } from './file-session-store.ts';

const SESSION = 'raft-consensus';
let notebook: Awaited<ReturnType<typeof createTestNotebook>>;
beforeEach(async () => {
  notebook = await createTestNotebook();
});
afterEach(async () => {
  await notebook.cleanup();
});

const USAGE = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/**
 * A provider that records every call: it first asks for `reads` (one `read_file` call per
 * step), then answers with a short text, streamed.
 */
function recordingModel(answer = 'A term is a logical clock.', reads: readonly string[] = []) {
  let step = 0;
  const text: LanguageModelV4StreamPart[] = [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: 't' },
    ...answer.split(' ').map(
      (word, index): LanguageModelV4StreamPart => ({
        type: 'text-delta',
        id: 't',
        delta: index === 0 ? word : ` ${word}`,
      }),
    ),
    { type: 'text-end', id: 't' },
    { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: USAGE },
  ];
  const toolCall = (path: string, index: number): LanguageModelV4StreamPart[] => [
    { type: 'stream-start', warnings: [] },
    {
      type: 'tool-call',
      toolCallId: `call-${index}`,
      toolName: 'read_file',
      input: JSON.stringify({ path }),
    },
    { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: USAGE },
  ];
  return new MockLanguageModelV4({
    doStream: async () => {
      const path = reads[step];
      const chunks = path === undefined ? text : toolCall(path, step);
      step++;
      return { stream: simulateReadableStream({ chunks }) };
    },
  });
}

const counter = getTokenCounter('gpt-4o');

function engineWith(model: MockLanguageModelV4) {
  const workspace = notebook.workspace;
  let next = 0;
  return createSessionEngine({
    workspace,
    store: createFileSessionStore({ workspace }),
    model: { model, spec: 'recording', offline: false },
    createId: () => `t-${++next}`,
    now: () => new Date('2026-03-01T10:00:00.000Z'),
  });
}

describe('runTurn', () => {
  it('sends exactly what the report says: the provider receives the report total and the output reserve', async () => {
    const model = recordingModel();
    const engine = engineWith(model);
    const turn = await engine.runTurn({
      sessionId: SESSION,
      text: 'What is a term? [guidance.md:1:3]',
      messageId: 'u-1',
    });
    const chunks = await readAll(turn.stream);
    expect(chunks.at(-1)?.type).toBe('finish');
    const call = model.doStreamCalls[0] as LanguageModelV4CallOptions;
    expect(countCallTokens(call, counter)).toBe(turn.compiled?.report.totalTokens);
    expect(turn.compiled?.report.tools?.names).toContain('open_artifact');
    expect(call.maxOutputTokens).toBe(turn.compiled?.report.outputReserve);

    // The turn is stored (user, then answer) before `finish`, and its call is in the log.
    const state = await engine.store.load(SESSION);
    expect(state.messages.slice(-2).map((message) => message.id)).toEqual(['u-1', 't-2']);
    expect(JSON.stringify(state.messages.at(-1)?.content)).toContain('logical clock');
    const calls = await engine.listCalls(SESSION);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ turnId: 'u-1', step: 0, model: 'recording' });
    expect(calls[0]?.report.totalTokens).toBe(turn.compiled?.report.totalTokens);
    expect(calls[0]?.messageFingerprints).toHaveLength(turn.compiled?.messages.length ?? -1);
  });

  it('compiles every step of a tool loop: each call is sent as its logged report says, within the window', async () => {
    // A file of ~5k tokens, read four times: sent uncompiled, the calls would reach ~26k tokens.
    const long = Array.from(
      { length: 400 },
      (_, index) => `Line ${index}: the leader appends entry ${index} and replicates it to followers.`,
    ).join('\n');
    await writeFile(join(notebook.root, SESSION, 'log-notes.md'), long);
    const reads = ['log-notes.md', 'log-notes.md', 'guidance.md', 'log-notes.md'];
    const model = recordingModel('Entries are replicated by the leader.', reads);
    const engine = engineWith(model);
    const turn = await engine.runTurn({
      sessionId: SESSION,
      text: 'How is the log replicated?',
      messageId: 'u-1',
    });
    await readAll(turn.stream);

    const received = model.doStreamCalls as LanguageModelV4CallOptions[];
    expect(received).toHaveLength(reads.length + 1);
    const calls = await engine.listCalls(SESSION);
    expect(calls.map((call) => [call.turnId, call.step])).toEqual(received.map((_, step) => ['u-1', step]));
    const limit = turn.compiled?.report.inputBudget ?? 0;
    for (const [step, call] of received.entries()) {
      const logged = calls[step]?.report;
      expect(countCallTokens(call, counter)).toBe(logged?.totalTokens);
      expect(logged?.totalTokens).toBeLessThanOrEqual(limit);
      expect(call.maxOutputTokens).toBe(logged?.outputReserve);
    }
    // The later calls carry the loop's tool results; one that no longer fits is behind a placeholder.
    expect(JSON.stringify(received.at(-1)?.prompt)).toContain('open_artifact');
    // The answer's first stored entry (its first step) names every call of the turn.
    const stored = (await engine.store.load(SESSION)).messages;
    const answer = stored[stored.findIndex((message) => message.id === 'u-1') + 1];
    expect(answer?.metadata?.context).toMatchObject({ callIds: calls.map((call) => call.id) });
  });

  it("sends a last-n session as its report says: the window is core's, the older messages are reported dropped", async () => {
    const configPath = join(notebook.root, SESSION, 'context-config.json');
    const config = JSON.parse(await readFile(configPath, 'utf8'));
    config.chatHistory = { ...config.chatHistory, strategy: 'last-n', lastN: 6 };
    await writeFile(configPath, JSON.stringify(config));
    const model = recordingModel('Terms order leaders.', ['guidance.md']);
    const engine = engineWith(model);
    const before = (await engine.store.load(SESSION)).messages;
    const turn = await engine.runTurn({ sessionId: SESSION, text: 'What is a term?', messageId: 'u-1' });
    await readAll(turn.stream);

    const lastSix = before.slice(-6).map((message) => message.id);
    expect(turn.compiled?.compiled.history.map((message) => message.id)).toEqual(lastSix);
    const received = model.doStreamCalls as LanguageModelV4CallOptions[];
    expect(received).toHaveLength(2);
    const calls = await engine.listCalls(SESSION);
    for (const [step, call] of received.entries()) {
      const report = calls[step]?.report;
      // What the provider received is what the report counts, on the first call and after the tool call.
      expect(countCallTokens(call, counter)).toBe(report?.totalTokens);
      const history = report?.layers.find((layer) => layer.layer === 'history');
      const windowed = history?.dropped.filter((block) => block.reason.type === 'history-window') ?? [];
      expect(windowed.map((block) => block.id).sort()).toEqual(
        before
          .slice(0, -6)
          .map((message) => `history:${message.id}`)
          .sort(),
      );
      expect(
        windowed.every((block) => block.reason.type === 'history-window' && block.reason.maxMessages === 6),
      ).toBe(true);
      expect(history?.kept.map((block) => block.id).slice(0, 6)).toEqual(
        lastSix.map((id) => `history:${id}`),
      );
      // Nothing outside the window is kept aside as an artifact either: none of it is sent.
      const outside = new Set(windowed.map((block) => block.id));
      expect(
        report?.compaction.filter((action) => action.type === 'placeholder' && outside.has(action.blockId)),
      ).toEqual([]);
    }
    // The oldest message never reaches the provider.
    expect(JSON.stringify(received.map((call) => call.prompt))).not.toContain(
      String(before[0]?.content).slice(0, 40),
    );
  });

  it('a turn whose reader left while it waited for the session does not stream the model: its partial answer is stored', async () => {
    const model = recordingModel('One two three four five six.');
    const engine = engineWith(model);
    const gone = new AbortController();
    const first = await engine.runTurn({ sessionId: SESSION, text: 'What is a term?', messageId: 'u-1' });
    // Queued behind the first turn of the session; its client disconnects before it starts.
    const second = engine.runTurn({
      sessionId: SESSION,
      text: 'And a vote?',
      messageId: 'u-2',
      signal: gone.signal,
    });
    gone.abort();
    await readAll(first.stream);
    const turn = await second;
    const chunks = await readAll(turn.stream);
    expect(chunks.some((chunk) => chunk.type === 'text-delta')).toBe(false);
    const stored = await turn.stored;
    expect(stored[0]?.metadata).toMatchObject({ partial: true });
    const state = await engine.store.load(SESSION);
    expect(state.messages.slice(-2).map((message) => message.id)).toEqual(['u-2', stored[0]?.id]);
  });

  it('runs /compress as a command: no model call, both messages marked, never sent later', async () => {
    const model = recordingModel();
    const engine = engineWith(model);
    const command = await engine.runTurn({ sessionId: SESSION, text: '/compress', messageId: 'c-1' });
    const text = (await readAll(command.stream))
      .map((chunk) => (chunk.type === 'text-delta' ? chunk.delta : ''))
      .join('');
    expect(text).toMatch(/context \d+ → \d+ tokens/u);
    expect(model.doStreamCalls).toHaveLength(0);
    const stored = (await engine.store.load(SESSION)).messages.slice(-2);
    expect(stored.map((message) => message.metadata?.command)).toEqual(['compress', 'compress']);

    const turn = await engine.runTurn({ sessionId: SESSION, text: 'and now?', messageId: 'u-2' });
    await readAll(turn.stream);
    const sent = JSON.stringify((model.doStreamCalls[0] as LanguageModelV4CallOptions).prompt);
    expect(sent).not.toContain('/compress');
    expect(sent).toContain('Summary of messages 1–');
  });

  it('runs its work in the caller’s slot once: a slot that skips it or runs it twice is refused, nothing stored twice', async () => {
    const engine = engineWith(recordingModel());
    const before = (await engine.store.load(SESSION)).messages.length;
    await expect(
      engine.runTurn({
        sessionId: SESSION,
        text: 'skipped',
        messageId: 's-1',
        slot: async () => undefined as never,
      }),
    ).rejects.toMatchObject({ code: 'invalid-argument', path: 'slot' });
    expect((await engine.store.load(SESSION)).messages).toHaveLength(before);
    await expect(
      engine.runTurn({
        sessionId: SESSION,
        text: 'twice',
        messageId: 't-2',
        slot: async (work) => {
          const turn = await work();
          await readAll((turn as { stream: ReadableStream<UIMessageChunk> }).stream);
          return work();
        },
      }),
    ).rejects.toMatchObject({ code: 'invalid-argument', path: 'slot' });
    const after = (await engine.store.load(SESSION)).messages;
    expect(after.filter((message) => message.id === 't-2')).toHaveLength(1);
    // The session is not left held: the next turn runs.
    const next = await engine.runTurn({ sessionId: SESSION, text: 'next', messageId: 'n-1' });
    await readAll(next.stream);
    expect((await next.stored).length).toBeGreaterThan(0);
  });

  it.each(['messages.json.turn', 'Messages.JSON.turn'])(
    "refuses a tool writing %s (the turn lock's name) inside a turn, rather than leave it waiting for its own turn",
    async (path) => {
      // Writes `path` once, then answers with the tool result it got.
      const engine = engineWith(
        scriptedModel(({ prompt }) => {
          const last = prompt.at(-1);
          return last?.role === 'tool'
            ? [{ type: 'text', text: JSON.stringify(last.content) }]
            : [
                {
                  type: 'tool-call',
                  toolCallId: 'call-1',
                  toolName: 'write_file',
                  input: JSON.stringify({ path, content: 'notes' }),
                },
              ];
        }),
      );
      const turn = await engine.runTurn({ sessionId: SESSION, text: 'Write the notes.', messageId: 'u-1' });
      await readAll(turn.stream);
      expect(JSON.stringify(await turn.stored)).toContain('managed by ctxloom');
      await expect(readFile(join(notebook.root, SESSION, path))).rejects.toThrow(/ENOENT/u);
    },
  );

  it('refuses a stored message id before storing anything', async () => {
    const engine = engineWith(recordingModel());
    const before = (await engine.store.load(SESSION)).messages.length;
    await expect(
      engine.runTurn({ sessionId: SESSION, text: 'again', messageId: 'm001' }),
    ).rejects.toMatchObject({
      code: 'conflict',
    });
    expect((await engine.store.load(SESSION)).messages).toHaveLength(before);
  });

  it('refuses a text that is not a string (invalid-argument at text), storing nothing', async () => {
    const engine = engineWith(recordingModel());
    const before = (await engine.store.load(SESSION)).messages.length;
    for (const text of [42, null, undefined, { text: 'hi' }]) {
      await expect(
        engine.runTurn({ sessionId: SESSION, text: text as unknown as string }),
      ).rejects.toMatchObject({ code: 'invalid-argument', path: 'text' });
    }
    expect((await engine.store.load(SESSION)).messages).toHaveLength(before);
  });
});

async function readAll(stream: ReadableStream<UIMessageChunk>): Promise<UIMessageChunk[]> {
  const chunks: UIMessageChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}
