import type { LanguageModelV4, LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { MockLanguageModelV4 } from 'ai/test';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nextArtifactCall, toolResultTexts } from '../ai-sdk/follow-placeholders.test-support.ts';
import { type ParsedPage, parsePage } from '../core/artifact-pages.ts';
import type { Message } from '../core/index.ts';
import { createTestNotebook } from '../server/test-workspace.test-support.ts';
import { createSessionEngine } from './create-session-engine.ts';
import { createFileSessionStore } from './file-session-store.ts';
import { scriptedModel, setSessionWindow, TOPICS, toolCall } from './long-session.test-support.ts';
import { indexedText } from './session-recall.ts';

const SESSION = 'raft-consensus';
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

/** An engine over the notebook's session store with `model` (a recording model, answers offline). */
function engineWith(model: LanguageModelV4) {
  return createSessionEngine({
    workspace: notebook.workspace,
    store: createFileSessionStore({ workspace: notebook.workspace }),
    model: { model, spec: 'recording', offline: true },
    now: () => new Date('2026-03-01T10:00:00.000Z'),
  });
}

/** `messages` stored as the session's earlier conversation, then one turn sending `text`. */
async function askAfter(engine: ReturnType<typeof engineWith>, messages: Message[], text: string) {
  await engine.store.appendMessages(SESSION, messages);
  const running = await engine.runTurn({ sessionId: SESSION, text });
  for await (const _ of running.stream);
  await running.stored;
  return running;
}

/** A stored tool message carrying `value` as the output of `toolName`'s call `callId`. */
function toolResultMessage(
  id: string,
  callId: string,
  toolName: string,
  value: string,
  metadata?: Message['metadata'],
): Message {
  return {
    id,
    role: 'tool',
    content: [{ type: 'tool-result', toolCallId: callId, toolName, output: { type: 'text', value } }],
    ...(metadata === undefined ? {} : { metadata }),
  };
}

/**
 * Thirty turns through `engine.runTurn`: `note(turn)` for the first 29, then a question whose
 * "look it up" makes the scripted model call `search_history` with `query`.
 */
async function runNotes(query: string, note: (turn: number) => string) {
  let turn = 0;
  const model = scriptedModel(() => `Fine ${turn}.`, { query });
  const engine = engineWith(model);
  for (turn = 0; turn < 30; turn++) {
    const text = turn === 29 ? 'Which telescope did I mention? Please look it up.' : note(turn);
    const running = await engine.runTurn({ sessionId: SESSION, text, messageId: `u-${turn}` });
    for await (const _ of running.stream);
    await running.stored;
  }
  return { engine, received: model.doStreamCalls as LanguageModelV4CallOptions[] };
}

describe('search_history over a long session through engine.runTurn (decision 040)', () => {
  for (const window of [3000, 4000]) {
    it(`gives the model search_history over the whole conversation (window ${window})`, async () => {
      await setWindow(window);
      const { engine, received } = await runNotes(
        'telescope',
        (turn) => `Note ${turn}: the ${TOPICS[turn % TOPICS.length]} one is ${turn * 3}.`,
      );
      const turnCalls = received.slice(
        received.findIndex((call) => JSON.stringify(call.prompt).includes('look it up')),
      );
      expect(JSON.stringify(turnCalls.at(-1)?.prompt)).toContain('search_history');
      // The tool's result names the earliest telescope note, whatever the cut, and reaches the
      // model as the tool's result (not only through the recall): whole, or on a page of it.
      const results = turnCalls.flatMap((call) => toolResultTexts(call.prompt));
      expect(results.some((text) => text.includes('the telescope one is 15'))).toBe(true);
      const stored = await engine.store.load(SESSION);
      const result = stored.messages.find(
        (message: Message) =>
          message.role === 'tool' && JSON.stringify(message.content).includes('search_history'),
      );
      expect(JSON.stringify(result?.content)).toContain('"position":');
    });
  }
});

describe('a step that moves the cut and has no room for its output (decision 070)', () => {
  it("keeps the output in the store the turn's open_artifact reads", async () => {
    await setWindow(3000);
    const { engine, received } = await runNotes(
      'telescope lens mirror',
      (turn) =>
        `Note ${turn}: the telescope with the ${TOPICS[turn % TOPICS.length]} lens and mirror number ${turn * 3} sits on the shelf sits on the shelf sits on the shelf.`,
    );
    const calls = await engine.listCalls(SESSION, { limit: 1000 });
    const last = calls.filter((call) => call.turnId === 'u-29' && call.agentId === undefined);
    // The scenario: a step of the turn moved the cut and kept the tool's answer as an artifact.
    expect(
      last.some(
        (call) =>
          call.step > 0 &&
          call.report.compaction.some((action) => action.type === 'compacted') &&
          call.report.compaction.some(
            (action) => action.type === 'placeholder' && action.reason === 'no-room',
          ),
      ),
    ).toBe(true);
    const results = received.flatMap((call) => toolResultTexts(call.prompt));
    expect(results.some((text) => parsePage(text) !== undefined)).toBe(true);
    expect(results.join('\n')).not.toContain('no artifact');
  });
});

describe('search_history (decision 040, 072)', () => {
  it('answers a hit on a tool call or a tool result with what it says, as the recall does — never an empty text', async () => {
    const engine = engineWith(scriptedModel(() => 'Done.', { query: 'lighthouse keeper' }));
    const at = { createdAt: '2026-02-01T09:00:00.000Z' };
    await askAfter(
      engine,
      [
        { id: 'h-u', role: 'user', content: 'Open the notes, please.', metadata: at },
        {
          id: 'h-call',
          role: 'assistant',
          content: [
            { type: 'tool-call', toolCallId: 'r1', toolName: 'read_file', input: { path: 'keeper.md' } },
          ],
          metadata: at,
        },
        toolResultMessage(
          'h-result',
          'r1',
          'read_file',
          'The lighthouse keeper logs the weather at dawn.',
          at,
        ),
      ],
      'Who logs the weather? Please look it up.',
    );
    const stored = await engine.store.load(SESSION);
    const result = stored.messages.find(
      (message: Message) =>
        message.role === 'tool' && JSON.stringify(message.content).includes('search_history'),
    );
    const part = Array.isArray(result?.content) ? result.content[0] : undefined;
    const hits =
      part?.type === 'tool-result' && part.output.type === 'json'
        ? (part.output.value as { id: string; text: string }[])
        : undefined;
    expect(hits?.length).toBeGreaterThan(0);
    const texts = new Map(hits?.map((hit) => [hit.id, hit.text]));
    expect(texts.get('h-result')).toBe('read_file → The lighthouse keeper logs the weather at dawn.');
    for (const hit of hits ?? []) expect(hit.text).not.toBe('');
  });

  it('lets the model read a long message whole: the hit shows its start, open_artifact its pages (decision 073)', async () => {
    const output = `The lighthouse keeper logs the weather at dawn. ${'Wind north, sea calm, 灯塔 🌊. '.repeat(200)}`;
    let hit: { text: string; more?: string } | undefined;
    const pages: ParsedPage[] = [];
    // Searches, then reads the artifact the hit names page by page, then answers.
    const model = new MockLanguageModelV4({
      doStream: async (options) => {
        const newest = toolResultTexts(options.prompt).at(-1);
        if (newest === undefined)
          return toolCall('s0', 'search_history', { query: 'lighthouse keeper weather' });
        const page = parsePage(newest);
        if (page !== undefined) pages.push(page);
        else {
          const result = JSON.parse(newest) as { type: string; value: unknown };
          const hits =
            result.type === 'json' ? (result.value as { id: string; text: string; more?: string }[]) : [];
          hit = hits.find((candidate) => candidate.id === 'h-long');
        }
        const follow = /call open_artifact with (\{[^}]*\})/u.exec(
          page === undefined ? (hit?.more ?? '') : '',
        );
        const next = follow === null ? nextArtifactCall(options.prompt) : JSON.parse(follow[1] as string);
        if (next !== undefined) return toolCall(`o${pages.length}`, 'open_artifact', next);
        return scriptedModel(() => 'Done.').doStream(options);
      },
    });
    await askAfter(
      engineWith(model),
      [
        { id: 'h-u', role: 'user', content: 'Run the log tool, please.' },
        toolResultMessage('h-long', 'r1', 'read_log', output),
      ],
      'What did the keeper log? Look it up.',
    );
    const whole = `read_log → ${output}`;
    expect(hit?.text).toBe(whole.slice(0, 1200));
    expect(hit?.more).toContain(`${whole.length} characters in all`);
    // Every character of the message reached the model, page by page.
    const read = new Array<string>(whole.length).fill('');
    for (const page of pages)
      for (let at = 0; at < page.text.length; at++) read[page.offset + at] = page.text[at] as string;
    expect(read.join('')).toBe(whole);
  });

  it('answers a hit on a huge tool call or result with its start and a handle, and indexes neither by its words', async () => {
    // A 2-million-character output and a call whose input is a 300,000-element array (wide JSON).
    const output = `Ledger export. ${'row 0042 harbour crates; '.repeat(80_000)}`;
    const input = { path: 'ledger.csv', rows: Array.from({ length: 300_000 }, (_, index) => index % 10) };
    let hits: { id: string; text: string; more?: string }[] = [];
    const model = new MockLanguageModelV4({
      doStream: async (options) => {
        const newest = toolResultTexts(options.prompt).at(-1);
        if (newest === undefined)
          return toolCall('s0', 'search_history', { query: 'harbour ledger export please' });
        const result = JSON.parse(newest) as { type: string; value: unknown };
        if (result.type === 'json') hits = result.value as typeof hits;
        return scriptedModel(() => 'Done.').doStream(options);
      },
    });
    const engine = engineWith(model);
    await askAfter(
      engine,
      [
        { id: 'h-u', role: 'user', content: 'Export the harbour ledger, please.' },
        {
          id: 'h-call',
          role: 'assistant',
          content: [{ type: 'tool-call', toolCallId: 'x1', toolName: 'export_rows', input }],
        },
        toolResultMessage('h-result', 'x1', 'export_rows', output),
      ],
      'What did the export say? Look it up.',
    );
    const byId = new Map(hits.map((hit) => [hit.id, hit]));
    // Found through the user's words beside them (their own words are not indexed), each cut.
    for (const id of ['h-call', 'h-result']) {
      const hit = byId.get(id);
      expect(hit?.text.length).toBeLessThanOrEqual(1200);
      expect(hit?.more).toMatch(
        /characters in all, the first 1200 shown — call open_artifact with \{"handle":"art_[0-9a-f]+"\}/u,
      );
    }
    expect(byId.get('h-result')?.text).toBe(`export_rows → ${output}`.slice(0, 1200));
    expect(
      indexedText((await engine.store.load(SESSION)).messages.find((m) => m.id === 'h-result') as Message),
    ).toBe('');
  });
});
