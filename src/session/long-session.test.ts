import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { countCallTokens } from '../ai-sdk/index.ts';
import {
  type CompileReport,
  droppedByReason,
  type Message,
  messageText,
  type Summarizer,
} from '../core/index.ts';
import { createTestNotebook } from '../server/test-workspace.test-support.ts';
import { getTokenCounter } from '../tokenizers/index.ts';
import { createSessionEngine } from './create-session-engine.ts';
import { createFileSessionStore } from './file-session-store.ts';
import { scriptedModel, setSessionWindow, TOPICS } from './long-session.test-support.ts';

const SESSION = 'raft-consensus';
const counter = getTokenCounter('gpt-4o');
let notebook: Awaited<ReturnType<typeof createTestNotebook>>;

beforeEach(async () => {
  notebook = await createTestNotebook();
});
afterEach(async () => {
  await notebook.cleanup();
});

async function setWindow(window: number) {
  await setSessionWindow(notebook.root, SESSION, window);
}

/** How a report accounts for each history message: sent, summarised, recalled or recallable. */
function accounting(report: CompileReport) {
  const counts: Record<string, number> = {};
  const history = report.layers.find((layer) => layer.layer === 'history');
  counts.sent = history?.kept.length ?? 0;
  for (const tally of droppedByReason(history ?? { dropped: [] }))
    counts[tally.reason.type] = (counts[tally.reason.type] ?? 0) + tally.count;
  return counts;
}

describe('a long session through engine.runTurn (decision 040)', () => {
  it('never leaves a message unaccounted for, moves its cut only forward, recalls older turns and sends what it reports', async () => {
    await setWindow(3000);
    let turn = 0;
    const model = scriptedModel(() => `Noted: the ${TOPICS[turn % TOPICS.length]} detail number ${turn}.`);
    let next = 0;
    const engine = createSessionEngine({
      workspace: notebook.workspace,
      store: createFileSessionStore({ workspace: notebook.workspace }),
      model: { model, spec: 'recording', offline: true },
      createId: () => `t-${++next}`,
      now: () => new Date('2026-03-01T10:00:00.000Z'),
    });
    const firstKept: number[] = [];
    for (turn = 0; turn < 45; turn++) {
      const topic = TOPICS[turn % TOPICS.length];
      const running = await engine.runTurn({
        sessionId: SESSION,
        text: `Turn ${turn}: my ${topic} story has the code word ${topic}-${turn * 7}. Keep it in mind please.`,
        messageId: `u-${turn}`,
      });
      for await (const _ of running.stream);
      await running.stored;
      const report = running.compiled?.report as CompileReport;
      // Nothing is dropped for lack of room: every message is sent, summarised, recalled or recallable.
      expect(accounting(report)['over-budget'] ?? 0).toBe(0);
      const kept = report.layers.find((layer) => layer.layer === 'history')?.kept ?? [];
      const state = await engine.store.load(SESSION);
      const positions = new Map(state.messages.map((message, index) => [`history:${message.id}`, index]));
      // With no history after the cut, the cut sits at the turn's own message.
      firstKept.push(positions.get(kept[0]?.id ?? `history:u-${turn}`) as number);
    }
    // The cut only moves forward, and it moved.
    for (let index = 1; index < firstKept.length; index++) {
      expect(firstKept[index]).toBeGreaterThanOrEqual(firstKept[index - 1] as number);
    }
    const calls = await engine.listCalls(SESSION, { limit: 1000 });
    const chatCalls = calls.filter((call) => call.agentId === undefined || call.agentId === 'assistant');
    expect(
      chatCalls.some((call) => call.report.compaction.some((action) => action.type === 'compacted')),
    ).toBe(true);
    // Each compaction says how many messages before the cut the summary's text carries; the
    // last one's counts are the stored summary's.
    const compactions = chatCalls.flatMap((call) =>
      call.report.compaction.flatMap((action) => (action.type === 'compacted' ? [action] : [])),
    );
    for (const action of compactions) {
      expect(action.carried).toBeLessThanOrEqual(action.covered as number);
      expect(action.covered).toBeGreaterThanOrEqual(action.messages);
    }
    const periods = (await engine.store.load(SESSION)).compression.summary?.periods ?? [];
    expect(compactions.at(-1)).toMatchObject({
      covered: periods.reduce((sum, period) => sum + period.count, 0),
      carried: periods.reduce((sum, period) => sum + (period.carried?.length ?? period.count), 0),
    });
    expect(compactions.at(-1)?.carried).toBeLessThan(compactions.at(-1)?.covered as number);
    // The chat shows where it happened: the answer after a compaction carries how many moved.
    const answers = (await engine.store.load(SESSION)).messages.filter(
      (message) => message.role === 'assistant',
    );
    expect(
      answers.some((message) => ((message.metadata?.context as { compacted?: number })?.compacted ?? 0) > 0),
    ).toBe(true);
    // The report is what the provider received, on every call.
    const received = model.doStreamCalls as LanguageModelV4CallOptions[];
    expect(received).toHaveLength(chatCalls.length);
    for (const [index, call] of chatCalls.entries()) {
      expect(countCallTokens(received[index] as LanguageModelV4CallOptions, counter)).toBe(
        call.report.totalTokens,
      );
      expect(call.report.totalTokens).toBeLessThanOrEqual(call.report.inputBudget);
    }

    // A question about an early turn: its message is recalled, and the report says so.
    const preview = await engine.compile(SESSION, { query: 'What was the code word of my glacier story?' });
    const counts = accounting(preview.report);
    expect(counts['over-budget'] ?? 0).toBe(0);
    expect(counts.recalled ?? 0).toBeGreaterThan(0);
    const state = await engine.store.load(SESSION);
    const conversation = state.messages.filter((message) => message.metadata?.command === undefined);
    const total = Object.values(counts).reduce((sum, value) => sum + value, 0);
    expect(total).toBe(conversation.length);
    expect(JSON.stringify(preview.messages)).toContain('glacier-14');
  });

  it('keeps the last exchange verbatim when the fixed layers leave the history less than the recall’s share (decision 069)', async () => {
    // 4,000-token window: the tools, prompts, knowledge and milestones take ~1,950 of the 3,000
    // input tokens, more than the recall's 55 % reservation leaves the history. Answers ~150 tokens.
    await setWindow(4000);
    let turn = 0;
    const answer = (at: number) =>
      `Answer ${at}: ${Array.from({ length: 24 }, (_, word) => `${TOPICS[(at + word) % TOPICS.length]}-${at}-${word}`).join(' ')}.`;
    const model = scriptedModel(() => answer(turn));
    const engine = createSessionEngine({
      workspace: notebook.workspace,
      store: createFileSessionStore({ workspace: notebook.workspace }),
      model: { model, spec: 'recording', offline: true },
      now: () => new Date('2026-03-01T10:00:00.000Z'),
    });
    let moves = 0;
    for (turn = 0; turn < 24; turn++) {
      const text = `Turn ${turn}: and what about the ${TOPICS[turn % TOPICS.length]} one?`;
      const running = await engine.runTurn({ sessionId: SESSION, text, messageId: `u-${turn}` });
      for await (const _ of running.stream);
      await running.stored;
      const report = running.compiled?.report as CompileReport;
      if (report.compaction.some((action) => action.type === 'compacted')) moves++;
      expect(report.totalTokens).toBeLessThanOrEqual(report.inputBudget);
      if (turn === 0) continue;
      // The previous question and its answer reach the model as history, not only as recall.
      const history = report.layers.find((layer) => layer.layer === 'history')?.kept ?? [];
      expect(history.map((block) => block.id)).toContain(`history:u-${turn - 1}`);
      expect(JSON.stringify(running.compiled?.aiSdk.messages)).toContain(answer(turn - 1));
    }
    // The session did outgrow its window: the cut moved (older turns summarised or recallable).
    expect(moves).toBeGreaterThan(0);
  });

  it('previews exactly the bytes the turn then sends, compaction included', async () => {
    await setWindow(2500);
    const model = scriptedModel(() => 'Understood, noted for later.');
    const engine = createSessionEngine({
      workspace: notebook.workspace,
      store: createFileSessionStore({ workspace: notebook.workspace }),
      model: { model, spec: 'recording', offline: true },
      now: () => new Date('2026-03-01T10:00:00.000Z'),
    });
    for (let turn = 0; turn < 30; turn++) {
      const text = `Item ${turn}: remember the ${TOPICS[turn % TOPICS.length]} number ${turn * 13}.`;
      const preview = await engine.compile(SESSION, { query: text, queryId: `u-${turn}` });
      const running = await engine.runTurn({ sessionId: SESSION, text, messageId: `u-${turn}` });
      for await (const _ of running.stream);
      await running.stored;
      expect(running.compiled?.aiSdk.messages).toEqual(preview.aiSdk.messages);
    }
  });

  // At 3,000 tokens the example's fixed layers (~1,800) leave the history less than the
  // tool's ~400-token result: it is kept as an artifact and read by pages (decision 070).
});

describe('/compress (decision 040)', () => {
  for (const scope of ['all', 'requirement', 'artifacts'] as const) {
    it(`/compress${scope === 'all' ? '' : ` ${scope}`} never makes the next call larger`, async () => {
      const engine = createSessionEngine({
        workspace: notebook.workspace,
        store: createFileSessionStore({ workspace: notebook.workspace }),
      });
      const outcome = await engine.compress(SESSION, { scope });
      expect(outcome.tokensAfter).toBeLessThanOrEqual(outcome.tokensBefore);
      // Twice in a row, and after the other forms, too.
      for (const again of ['all', 'requirement', 'artifacts'] as const) {
        const next = await engine.compress(SESSION, { scope: again });
        expect(next.tokensAfter).toBeLessThanOrEqual(next.tokensBefore);
      }
    });
  }

  it('a message dismissed after /compress never reaches the model, not even through the summary', async () => {
    const engine = createSessionEngine({
      workspace: notebook.workspace,
      store: createFileSessionStore({ workspace: notebook.workspace }),
    });
    await engine.compress(SESSION, { keepLast: 2 });
    const state = await engine.store.load(SESSION);
    const periods = state.compression.summary?.periods ?? [];
    // A user message the summary carries a line for; its words as the summary shows them.
    const period = periods.find((candidate) =>
      candidate.carried?.some((id) => state.messages.find((message) => message.id === id)?.role === 'user'),
    );
    const index = period?.carried?.findIndex(
      (id) => state.messages.find((message) => message.id === id)?.role === 'user',
    );
    const target = state.messages.find((message) => message.id === period?.carried?.[index ?? -1]);
    const line = period?.text.split('\n')[index ?? -1] ?? '';
    const sentence = line.replace(/^- user: /u, '').slice(0, 16);
    expect(sentence.length).toBe(16);
    expect(JSON.stringify((await engine.compile(SESSION)).messages)).toContain(sentence);
    await engine.curate(SESSION, {
      action: 'dismiss',
      targetMessageIds: [target?.id as string],
      summary: 'not needed',
    });
    const after = JSON.stringify((await engine.compile(SESSION, { query: '接下来学什么？' })).messages);
    expect(after).not.toContain(sentence);
  });
});

describe('/compress artifacts (seed 004 §2.2)', () => {
  it('shows the model its tool results as an index and sends each indexed output as its handle', async () => {
    const engine = createSessionEngine({
      workspace: notebook.workspace,
      store: createFileSessionStore({ workspace: notebook.workspace }),
    });
    const before = JSON.stringify((await engine.compile(SESSION)).messages);
    expect(before).toContain('AppendEntries RPC');
    const outcome = await engine.compress(SESSION, { scope: 'artifacts' });
    expect(outcome.artifacts?.evidence).toBeGreaterThan(0);
    const after = await engine.compile(SESSION);
    const todo = after.compiled.contexts.todo__context ?? '';
    expect(todo).toMatch(
      /### Tool results[^\n]*\n- ev\d+ read_(file|block) ok · \d+ chars · sha256:[0-9a-f]{12} \| /u,
    );
    const history = JSON.stringify(after.compiled.history);
    expect(history).toMatch(/indexed as ev\d+ \(\d+ chars, sha256:[0-9a-f]{12}\)/u);
    expect(outcome.tokensAfter).toBeLessThan(outcome.tokensBefore);
  });
});

describe('a model summary and a later dismissal (decision 040)', () => {
  it("writes the model's period again without the dismissed message's text", async () => {
    const seen: string[][] = [];
    // A summariser without per-message lines, as a model is: it quotes what it is given.
    const summarizer: Summarizer = {
      name: 'model recording',
      async summarize(input) {
        seen.push(input.messages.map((message) => messageText(message)));
        return input.messages.map((message) => `- ${messageText(message).slice(0, 60)}`).join('\n');
      },
    };
    const engine = createSessionEngine({
      workspace: notebook.workspace,
      store: createFileSessionStore({ workspace: notebook.workspace }),
      summarizer,
    });
    await engine.compress(SESSION, { keepLast: 2 });
    const state = await engine.store.load(SESSION);
    const period = state.compression.summary?.periods?.[0];
    expect(period?.carried).toBeUndefined();
    const target = state.messages.find((message) => message.role === 'user' && message.id !== undefined);
    const words = messageText(target as Message).slice(0, 24);
    expect(JSON.stringify((await engine.compile(SESSION)).messages)).toContain(words);
    const calls = seen.length;
    await engine.curate(SESSION, { action: 'exclude', targetMessageIds: [target?.id as string] });
    expect(seen.length).toBe(calls + 1);
    const after = JSON.stringify((await engine.compile(SESSION, { query: '接下来学什么？' })).messages);
    expect(after).not.toContain(words);
  });
});

describe('/compress with a failing summariser', () => {
  it('falls back to the extractive summariser, says so in the answer and the report, and stores a summary', async () => {
    const failing: Summarizer = {
      name: 'model down',
      async summarize() {
        throw new Error('model down');
      },
    };
    const engine = createSessionEngine({
      workspace: notebook.workspace,
      store: createFileSessionStore({ workspace: notebook.workspace }),
      summarizer: failing,
      model: { model: scriptedModel(() => 'ok'), spec: 'recording', offline: true },
    });
    const turn = await engine.runTurn({ sessionId: SESSION, text: '/compress' });
    for await (const _ of turn.stream);
    const [answer] = await turn.stored;
    expect(messageText(answer as Message)).toContain('The summariser failed (model down)');
    const state = await engine.store.load(SESSION);
    expect(state.compression.summary?.summarizer).toBe('extractive (offline)');
  });
});

describe('recall with an embedder (decision 040)', () => {
  it('recalls an older message that shares no word with the question, by its vector', async () => {
    await setWindow(3000);
    const concepts = [
      ['automobile', 'vehicle', 'car'],
      ['violin', 'instrument'],
    ];
    // A toy embedder: one dimension per concept, the rest of the words hashed into eight more.
    const embedder = {
      name: 'concepts',
      dimensions: 10,
      async embed(texts: readonly string[]) {
        return texts.map((text) => {
          const vector = new Float32Array(10);
          for (const word of text.toLowerCase().match(/[a-z]+/gu) ?? []) {
            const concept = concepts.findIndex((group) => group.includes(word));
            if (concept >= 0) vector[concept] = (vector[concept] ?? 0) + 5;
            else vector[2 + (word.length % 8)] = (vector[2 + (word.length % 8)] ?? 0) + 0.05;
          }
          return vector;
        });
      },
    };
    const engine = createSessionEngine({
      workspace: notebook.workspace,
      store: createFileSessionStore({ workspace: notebook.workspace }),
      model: { model: scriptedModel(() => 'Noted.'), spec: 'recording', offline: true },
      embedder,
    });
    const texts = ['I finally bought an automobile last spring, a blue one.'];
    for (let turn = 0; turn < 40; turn++)
      texts.push(`Note ${turn}: the ${TOPICS[turn % TOPICS.length]} list grows.`);
    for (const [turn, text] of texts.entries()) {
      const running = await engine.runTurn({ sessionId: SESSION, text, messageId: `u-${turn}` });
      for await (const _ of running.stream);
      await running.stored;
    }
    const preview = await engine.compile(SESSION, { query: 'Which vehicle did I get?' });
    const recalled = preview.compiled.kept.filter((block) => block.layer === 'recall__context');
    expect(recalled.some((block) => block.content.includes('bought an automobile'))).toBe(true);
    // Without the embedder, the words alone do not find it.
    const lexical = createSessionEngine({
      workspace: notebook.workspace,
      store: createFileSessionStore({ workspace: notebook.workspace }),
    });
    const plain = await lexical.compile(SESSION, { query: 'Which vehicle did I get?' });
    const lexicallyRecalled = plain.compiled.kept.filter((block) => block.layer === 'recall__context');
    expect(lexicallyRecalled.some((block) => block.content.includes('bought an automobile'))).toBe(false);
  });
});
