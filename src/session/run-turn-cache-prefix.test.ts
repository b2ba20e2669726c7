import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LanguageModelV4CallOptions, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { simulateReadableStream } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { countCallTokens } from '../ai-sdk/index.ts';
import { createTestNotebook } from '../server/test-workspace.test-support.ts';
import { getTokenCounter } from '../tokenizers/index.ts';
import { createSessionEngine } from './create-session-engine.ts';
import { createFileSessionStore } from './file-session-store.ts';

const SESSION = 'raft-consensus';
const counter = getTokenCounter('gpt-4o');
const USAGE = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};
const WORDS = [
  'quorum',
  'ledger',
  'beacon',
  'harbor',
  'granite',
  'meadow',
  'lantern',
  'compass',
  'falcon',
  'ember',
];

let notebook: Awaited<ReturnType<typeof createTestNotebook>>;
beforeEach(async () => {
  notebook = await createTestNotebook();
});
afterEach(async () => {
  await notebook.cleanup();
});

/** A file of about `tokens` tokens whose lines all differ. */
function fileText(seed: number, tokens: number): string {
  const lines: string[] = [];
  for (let line = 0; lines.join('\n').length < tokens * 4.3; line++) {
    const word = (offset: number) => WORDS[(seed * 7 + line * 3 + offset) % WORDS.length];
    lines.push(
      `${seed}.${line}: the ${word(0)} keeps its ${word(1)} near the ${word(2)} (entry ${seed * 1000 + line}).`,
    );
  }
  return lines.join('\n');
}

/** A provider that reads the turn's file once (`reads(turn)` of them), then answers. */
function readingModel(state: { turn: number; reads: number }, reads: (turn: number) => number) {
  return new MockLanguageModelV4({
    doStream: async () => {
      const chunks: LanguageModelV4StreamPart[] =
        state.reads < reads(state.turn)
          ? [
              { type: 'stream-start', warnings: [] },
              {
                type: 'tool-call',
                toolCallId: `r${state.turn}-${state.reads}`,
                toolName: 'read_file',
                input: JSON.stringify({ path: `notes-${(state.turn + state.reads++) % 6}.md` }),
              },
              { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: USAGE },
            ]
          : [
              { type: 'stream-start', warnings: [] },
              { type: 'text-start', id: 't' },
              {
                type: 'text-delta',
                id: 't',
                delta: `Turn ${state.turn}: the notes agree on the ${WORDS[state.turn % 10]}.`,
              },
              { type: 'text-end', id: 't' },
              { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: USAGE },
            ];
      return { stream: simulateReadableStream({ chunks }) };
    },
  });
}

/** Runs `turns` turns of the Raft notebook; returns each provider call with its turn. */
async function runSession(
  turns: number,
  reads: (turn: number) => number,
  setup: { window?: number; fileTokens?: number; fresh?: boolean } = {},
) {
  const folder = join(notebook.root, SESSION);
  for (let index = 0; index < 6; index++) {
    await writeFile(join(folder, `notes-${index}.md`), fileText(index, setup.fileTokens ?? 3000));
  }
  if (setup.fresh === true) await writeFile(join(folder, 'messages.json'), '[]');
  if (setup.window !== undefined) {
    const path = join(folder, 'context-config.json');
    const config = JSON.parse(await readFile(path, 'utf8'));
    config.budget.window = setup.window;
    await writeFile(path, JSON.stringify(config));
  }
  const state = { turn: 0, reads: 0 };
  const model = readingModel(state, reads);
  let next = 0;
  const engine = createSessionEngine({
    workspace: notebook.workspace,
    store: createFileSessionStore({ workspace: notebook.workspace }),
    model: { model, spec: 'recording', offline: false },
    createId: () => `t-${++next}`,
    now: () => new Date('2026-03-01T10:00:00.000Z'),
    maxSteps: 6,
  });
  const turnOf: number[] = [];
  for (state.turn = 0; state.turn < turns; state.turn++) {
    state.reads = 0;
    const before = model.doStreamCalls.length;
    const running = await engine.runTurn({
      sessionId: SESSION,
      text: `Turn ${state.turn}: what do the notes say about the ${WORDS[(state.turn * 3) % 10]}?`,
      messageId: `u-${state.turn}`,
    });
    for await (const _ of running.stream);
    await running.stored;
    for (let call = before; call < model.doStreamCalls.length; call++) turnOf.push(state.turn);
  }
  const received = model.doStreamCalls as LanguageModelV4CallOptions[];
  const calls = (await engine.listCalls(SESSION)).filter((call) => call.agentId !== 'summarizer');
  // Every call is sent as its logged report says.
  expect(calls).toHaveLength(received.length);
  for (const [index, call] of received.entries()) {
    expect(countCallTokens(call, counter)).toBe(calls[index]?.report.totalTokens);
  }
  return { received, calls, turnOf };
}

/** How many leading messages two prompts share (cache breakpoints, in provider options, aside). */
function sharedPrefix(a: LanguageModelV4CallOptions, b: LanguageModelV4CallOptions): number {
  const key = (message: LanguageModelV4CallOptions['prompt'][number] | undefined) =>
    message === undefined ? undefined : JSON.stringify([message.role, message.content]);
  let index = 0;
  while (index < a.prompt.length && key(a.prompt[index]) === key(b.prompt[index])) index++;
  return index;
}

const isTodo = (message: LanguageModelV4CallOptions['prompt'][number]) =>
  JSON.stringify(message).includes('Raft 学习里程碑');

describe('the cached prefix of engine.runTurn (decision 063)', () => {
  it('sends the TODO before the history, so consecutive turns share the prefix through it', async () => {
    const { received } = await runSession(4, () => 0);
    // From the second turn: the first delivered the manifest's `once` exercise, which then leaves the TODO.
    for (let call = 2; call < received.length; call++) {
      const previous = received[call - 1] as LanguageModelV4CallOptions;
      const current = received[call] as LanguageModelV4CallOptions;
      const todo = current.prompt.findIndex(isTodo);
      expect(todo).toBeGreaterThan(0);
      // The history grew at its end: everything before it, the TODO included, is the previous call's.
      expect(sharedPrefix(previous, current)).toBeGreaterThan(todo);
      expect(current.prompt[todo]?.role).toBe('system');
    }
  });

  it('keeps the cut and the history through the steps of a turn while the recall gives way', async () => {
    // A new conversation in an 8k window, files of ~1,500 tokens read in most turns: the
    // session passes its cut early, then recalls the messages behind it, and each step's
    // output must find room.
    const { received, calls, turnOf } = await runSession(14, (turn) => [1, 2, 1, 1, 0][turn % 5] as number, {
      window: 8000,
      fileTokens: 1500,
      fresh: true,
    });
    const firstMove = calls.findIndex((call) =>
      call.report.compaction.some((action) => action.type === 'compacted'),
    );
    expect(firstMove).toBeGreaterThanOrEqual(0);
    let steps = 0;
    for (let call = firstMove + 1; call < received.length; call++) {
      if (turnOf[call] !== turnOf[call - 1]) continue;
      steps++;
      const report = calls[call]?.report;
      expect(report?.totalTokens).toBeLessThanOrEqual(report?.inputBudget ?? 0);
      // A step that moves the cut does so for its own messages, past the soft limit without the recall.
      const move = report?.compaction.find((action) => action.type === 'compacted');
      if (move !== undefined) {
        expect(move.trigger).toBe('soft-limit');
        continue;
      }
      // Any other step repeats the previous call's prefix through the whole history.
      const previous = received[call - 1] as LanguageModelV4CallOptions;
      const current = received[call] as LanguageModelV4CallOptions;
      // The history ends at the volatile layers' user text, or at the query when the call has
      // none (the profile is sent before the history, decision 071; retrieval may find nothing).
      const volatile = current.prompt.findIndex((message) =>
        JSON.stringify(message).includes('<context layer='),
      );
      const query = current.prompt.findIndex((message) =>
        JSON.stringify(message).includes(`Turn ${turnOf[call]}: what do the notes say`),
      );
      const tail = volatile >= 0 ? volatile : query;
      expect(tail).toBeGreaterThan(2);
      expect(sharedPrefix(previous, current)).toBeGreaterThanOrEqual(tail);
    }
    expect(steps).toBeGreaterThanOrEqual(5);
  });

  it('holds a whole recall before the history until the cut moves, so the next turns repeat it', async () => {
    // A new conversation in an 8k window: the cut moves within a few turns, and the few
    // messages behind it are all recalled (the recall is whole). Files of ~800 tokens: the
    // recall is whole with the room the steps take beside it (a recall cut to leave the turn's
    // steps their room is not held, decision 068).
    const { received, calls, turnOf } = await runSession(16, (turn) => [1, 2, 1, 1, 0][turn % 5] as number, {
      window: 8000,
      fileTokens: 800,
      fresh: true,
    });
    // Recalled messages read `2026-03-01 user: …`; before the history they travel as a system message.
    const recallAt = (call: LanguageModelV4CallOptions) =>
      call.prompt.findIndex((message) => JSON.stringify(message).includes('2026-03-01 user: Turn'));
    let held = 0;
    for (let call = 1; call < received.length; call++) {
      const current = received[call] as LanguageModelV4CallOptions;
      const at = recallAt(current);
      if (at < 0 || current.prompt[at]?.role !== 'system') continue;
      // Sent before the history, as the report says: every recalled message is `recalled`.
      const report = calls[call]?.report;
      const recalled = report?.layers.flatMap((layer) =>
        layer.dropped.filter((entry) => entry.reason.type === 'recalled'),
      );
      expect(recalled?.length).toBeGreaterThan(0);
      const moved = report?.compaction.some((action) => action.type === 'compacted') === true;
      const previous = received[call - 1] as LanguageModelV4CallOptions;
      if (
        moved ||
        turnOf[call] === turnOf[call - 1] ||
        previous.prompt[recallAt(previous)]?.role !== 'system'
      )
        continue;
      // A turn that did not move the cut repeats the previous call through the recall and the history.
      expect(sharedPrefix(previous, current)).toBeGreaterThan(at);
      held++;
    }
    expect(held).toBeGreaterThanOrEqual(3);
  });

  it('leaves the next turns the room a turn’s steps took as sent, not the outputs its placeholders stand for', async () => {
    // An 8k window, files of ~2,000 tokens, two reads every third turn: the second read's call
    // sends the first output as a placeholder, so the turn's steps take one file's room, not
    // two. Counted at the outputs' size (before decision 077), the next turns' recall gave that
    // room away for nothing: from the first move of the cut no call but a moving one sent any.
    const { calls, turnOf } = await runSession(24, (turn) => (turn % 3 === 0 ? 2 : 0), {
      window: 8000,
      fileTokens: 1500,
      fresh: true,
    });
    const secondReads = calls.filter(
      (_, call) => turnOf[call] === turnOf[call - 2] && (turnOf[call] ?? 1) % 3 === 0,
    );
    expect(secondReads.length).toBeGreaterThanOrEqual(6);
    for (const call of secondReads)
      expect(call.report.compaction).toContainEqual(expect.objectContaining({ type: 'placeholder' }));
    const firstMove = calls.findIndex((call) =>
      call.report.compaction.some((action) => action.type === 'compacted'),
    );
    expect(firstMove).toBeGreaterThan(0);
    expect(calls.length - firstMove).toBeGreaterThanOrEqual(15);
    for (const call of calls.slice(firstMove)) {
      expect(call.report.totalTokens).toBeLessThanOrEqual(call.report.inputBudget);
      const recalled = call.report.layers.flatMap((layer) =>
        layer.dropped.filter((entry) => entry.reason.type === 'recalled'),
      );
      expect(recalled.length).toBeGreaterThan(0);
    }
  });
});
