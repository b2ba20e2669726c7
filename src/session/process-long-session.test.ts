import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ToolSet, tool } from 'ai';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { hasEveryLine, nextArtifactCall } from '../ai-sdk/follow-placeholders.test-support.ts';
import { countCallTokens } from '../ai-sdk/index.ts';
import {
  type CallRecord,
  type CompileReport,
  createExtractiveSummarizer,
  droppedByReason,
} from '../core/index.ts';
import { defineAgent } from '../runtime/agents/define-agent.ts';
import { processRule } from '../runtime/agents/process-rules.ts';
import { compileAgentCall } from '../runtime/agents/run-agent.ts';
import { SqliteSaver } from '../runtime/checkpoint/sqlite-saver.ts';
import {
  promptText,
  type ScriptedModel,
  scriptedModel,
  textModel,
} from '../runtime/processes/mock-model.test-support.ts';
import { createSequentialProcess } from '../runtime/processes/sequential.ts';
import { createTestNotebook } from '../server/test-workspace.test-support.ts';
import { StateBuilder } from '../state/index.ts';
import { getTokenCounter } from '../tokenizers/index.ts';
import { createCheckpointSessionStore } from './checkpoint-session-store.ts';
import { createSessionEngine } from './create-session-engine.ts';
import type { SessionProcess } from './session-engine.ts';

const SESSION = 'raft-consensus';
const directory = mkdtempSync(join(tmpdir(), 'ctxloom-process-long-'));
const saver = new SqliteSaver({ path: join(directory, 'sessions.db'), durability: 'normal' });
afterAll(async () => {
  await saver.close();
  rmSync(directory, { recursive: true, force: true });
});

const counter = getTokenCounter('gpt-4o');
const TOPICS = ['lighthouse', 'violin', 'glacier', 'marathon', 'orchid', 'telescope', 'pottery', 'sailboat'];

let notebook: Awaited<ReturnType<typeof createTestNotebook>>;
let thread = 0;
beforeEach(async () => {
  notebook = await createTestNotebook();
  thread += 1;
});
afterEach(async () => {
  await notebook.cleanup();
});

async function setWindow(window: number): Promise<void> {
  const session = notebook.workspace.session(SESSION);
  const config = JSON.parse(await session.readText('context-config.json'));
  config.budget = { ...config.budget, window };
  await session.writeText('context-config.json', JSON.stringify(config));
}

/** How a report accounts for each history message: sent, or the reason it is not. */
function accounting(report: CompileReport): Record<string, number> {
  const counts: Record<string, number> = {};
  const history = report.layers.find((layer) => layer.layer === 'history');
  counts.sent = history?.kept.length ?? 0;
  for (const tally of droppedByReason(history ?? { dropped: [] }))
    counts[tally.reason.type] = (counts[tally.reason.type] ?? 0) + tally.count;
  return counts;
}

/** The history drops of an agent's own tool-loop steps (ids `ai:…`) in `calls`' reports. */
function agentStepDrops(calls: readonly CallRecord[]) {
  return calls.flatMap((call) =>
    (call.report.layers.find((layer) => layer.layer === 'history')?.dropped ?? []).filter((drop) =>
      drop.id.startsWith('history:ai:'),
    ),
  );
}

/** How a step dropped for room and found again by the agent's search is reported (decision 070). */
const RECALLABLE_STEP_DROP = { type: 'over-budget', recallTool: 'search_history' };

/**
 * A session engine whose turns run two agents in sequence (a reader, then a writer that sees
 * the reader's reply) on a checkpoint thread; one recording model answers both.
 */
function processEngine(
  answer: ((prompt: string, index: number) => string) | ScriptedModel,
  readerSteps = 5,
  readerTools: ToolSet = {},
) {
  const store = createCheckpointSessionStore({ saver, threadIdOf: (id) => `${id}-long-${thread}` });
  const model = typeof answer === 'function' ? textModel(answer) : answer;
  const reader = defineAgent({
    id: 'reader',
    systemPrompt: 'You read the story.',
    model,
    maxSteps: readerSteps,
    tools: readerTools,
  });
  const writer = defineAgent({ id: 'writer', systemPrompt: 'You note the code word.', model });
  const graph = createSequentialProcess({
    counter,
    blackboard: store.blackboard,
    agents: [reader, writer],
  }).compile({ checkpointer: saver });
  const preview: SessionProcess['preview'] = async (sessionId, query, manifest) => {
    const view = await graph.getState({ configurable: { thread_id: store.threadIdOf(sessionId) } });
    return compileAgentCall({
      agent: reader,
      sb: new StateBuilder(view.values as Record<string, unknown>, { blackboard: store.blackboard }),
      rule: processRule('agent'),
      counter,
      ...(query === undefined ? {} : { query }),
      ...(manifest?.layers === undefined
        ? {}
        : { placeholderLocale: manifest.placeholderLocale, sessionLayers: manifest.layers }),
    });
  };
  let next = 0;
  const engine = createSessionEngine({
    workspace: notebook.workspace,
    store,
    counter,
    process: { graph, preview },
    createId: () => `id-${++next}`,
    now: () => new Date('2026-03-01T10:00:00.000Z'),
  });
  return { engine, store, model };
}

/** Runs one turn of `engine` in the session and waits until it is stored. */
async function storedTurn(
  engine: ReturnType<typeof processEngine>['engine'],
  text: string,
  messageId: string,
) {
  const running = await engine.runTurn({ sessionId: SESSION, text, messageId });
  for await (const _ of running.stream);
  await running.stored;
  return running;
}

/**
 * Thirty story turns (`text(turn)`, message ids `u-<turn>`), then `question` (id `q`): returns the
 * question's turn once stored. `onTurn` sees each turn's number before it is sent.
 */
async function storyThenQuestion(
  engine: ReturnType<typeof processEngine>['engine'],
  text: (turn: number) => string,
  question: string,
  onTurn: (turn: number) => void = () => {},
) {
  for (let turn = 0; turn < 30; turn++) {
    onTurn(turn);
    await storedTurn(engine, text(turn), `u-${turn}`);
  }
  onTurn(30);
  return storedTurn(engine, question, 'q');
}

describe('a long process session: agent calls under the session’s cut, rolling summary and recall (decision 066)', () => {
  it('accounts for every message in every agent call, never moves the cut back, and each report is what the provider received', async () => {
    await setWindow(3000);
    let turn = 0;
    const { engine, store, model } = processEngine(
      (_prompt, index) =>
        `Noted, call ${index}: the ${TOPICS[turn % TOPICS.length]} story of turn ${turn} is in my notes now.`,
    );
    const stored: string[][] = [];
    const cuts: number[] = [];
    const TURNS = 36;
    for (turn = 0; turn < TURNS; turn++) {
      const topic = TOPICS[turn % TOPICS.length];
      const text = `Turn ${turn}: my ${topic} story has the code word ${topic}-${turn * 7}. Keep it in mind please.`;
      await storedTurn(engine, text, `u-${turn}`);
      const state = await store.load(SESSION);
      stored.push(state.messages.map((message) => message.id));
      const through = state.compression.summary?.throughMessageId;
      cuts.push(through === undefined ? -1 : state.messages.findIndex((message) => message.id === through));
    }
    // The stored cut moved, and only forward.
    expect(cuts.at(-1)).toBeGreaterThan(0);
    for (let index = 1; index < cuts.length; index++) {
      expect(cuts[index]).toBeGreaterThanOrEqual(cuts[index - 1] as number);
    }

    const calls = (await engine.listCalls(SESSION, { limit: 1000 })).filter(
      (call) => call.agentId === 'reader' || call.agentId === 'writer',
    );
    expect(calls).toHaveLength(2 * TURNS);
    // The report is what the provider received, on every call, and every call fits.
    expect(model.calls).toHaveLength(calls.length);
    for (const [index, call] of calls.entries()) {
      expect(call.report.totalTokens).toBe(countCallTokens(model.calls[index]!, counter));
      expect(call.report.totalTokens).toBeLessThanOrEqual(call.report.inputBudget);
    }
    // The TODO and the summary go before the history the call sends, as a chat turn's do
    // (decisions 063, 068): the history growing turn by turn re-sends neither.
    let ordered = 0;
    for (const [index, call] of calls.entries()) {
      const history = call.report.layers.find((layer) => layer.layer === 'history');
      const summarised = call.report.layers.some(
        (layer) => layer.layer === 'compression__context' && layer.kept.length > 0,
      );
      if ((history?.kept.length ?? 0) === 0 || !summarised) continue;
      const prompt = model.calls[index]?.prompt ?? [];
      const text = (at: number) => JSON.stringify(prompt[at]?.content ?? '');
      const firstTurn = prompt.findIndex(
        (message) => message.role === 'user' || message.role === 'assistant',
      );
      const summaryAt = prompt.findIndex((_message, at) => text(at).startsWith('"Summary of messages'));
      const todoAt = prompt.findIndex((_message, at) => text(at).includes('Raft 学习里程碑'));
      expect(summaryAt, `call ${index}`).toBeGreaterThan(0);
      expect(summaryAt, `call ${index}`).toBeLessThan(firstTurn);
      expect(todoAt, `call ${index}`).toBeLessThan(firstTurn);
      ordered++;
    }
    expect(ordered).toBeGreaterThan(0);
    // Agents that take tools are offered `search_history` from the first call on, before any
    // cut (decision 066, second amendment): the tool set never changes.
    for (const [index, sent] of model.calls.entries()) {
      const offered = (sent.tools ?? []).some((tool) => tool.name === 'search_history');
      expect(offered, `call ${index}`).toBe(true);
    }
    // The agents' cut moved the stored one: some call says so in its report.
    expect(calls.some((call) => call.report.compaction.some((action) => action.type === 'compacted'))).toBe(
      true,
    );

    const final = stored.at(-1) as string[];
    let firstSent = -1;
    for (const [index, call] of calls.entries()) {
      const turnIndex = Math.floor(index / 2);
      const counts = accounting(call.report);
      // Every message is sent, summarised in a summary that is sent, recalled or recallable.
      for (const reason of Object.keys(counts)) {
        expect(['sent', 'summarized', 'recalled', 'recallable']).toContain(reason);
      }
      if ((counts.summarized ?? 0) > 0) {
        const summary = call.report.layers.find((layer) => layer.layer === 'compression__context');
        expect(summary?.kept.length ?? 0).toBeGreaterThan(0);
      }
      // …and every message of the conversation so far is in the history: the turns before
      // (three messages each); for the writer also the turn's message and the reader's reply
      // (the reader's query is the turn's message, sent as the query).
      const total = Object.values(counts).reduce((sum, value) => sum + value, 0);
      expect(total, `call ${index}`).toBe(3 * turnIndex + (call.agentId === 'writer' ? 2 : 0));
      // The history's first message sent never moves back, across calls and turns.
      const kept = call.report.layers.find((layer) => layer.layer === 'history')?.kept ?? [];
      // (With no history before it, the first message sent is the turn's, as the query.)
      const first = final.indexOf(kept[0]?.id.replace(/^history:/u, '') ?? call.turnId);
      expect(first, `call ${index}`).toBeGreaterThanOrEqual(firstSent);
      firstSent = first;
    }
    expect(firstSent).toBeGreaterThan(0);

    // A chat turn of the same session starts where the agents left the cut, never before it.
    const chatModel = textModel(() => 'Noted.');
    let next = 0;
    const chat = createSessionEngine({
      workspace: notebook.workspace,
      store,
      counter,
      model: { model: chatModel, spec: 'mock:chat', offline: false },
      summarizer: createExtractiveSummarizer({ counter }),
      createId: () => `chat-${++next}`,
    });
    const chatTurn = await chat.runTurn({
      sessionId: SESSION,
      text: 'Which stories so far?',
      messageId: 'c',
    });
    for await (const _ of chatTurn.stream);
    await chatTurn.stored;
    const chatReport = chatTurn.compiled?.report as CompileReport;
    expect(Object.keys(accounting(chatReport))).not.toContain('over-budget');
    const chatKept = chatReport.layers.find((layer) => layer.layer === 'history')?.kept ?? [];
    // (Its tools and layers are larger than an agent's: its own rule may move the cut further.)
    const after = (await store.load(SESSION)).messages.map((message) => message.id);
    const chatFirst = chatKept[0]?.id.replace(/^history:/u, '') ?? chatTurn.userMessageId;
    expect(after.indexOf(chatFirst)).toBeGreaterThanOrEqual(firstSent);
    expect(chatReport.totalTokens).toBe(countCallTokens(chatModel.calls[0]!, counter));
  });

  it('lets an agent that takes tools search the whole conversation for a message behind the cut', async () => {
    await setWindow(3000);
    let turn = 0;
    const model = scriptedModel((options) => {
      const prompt = promptText(options);
      const offered = (options.tools ?? []).some((tool) => tool.name === 'search_history');
      const answered = options.prompt.some((message) => message.role === 'tool');
      if (offered && prompt.includes('look it up') && !answered) {
        return [
          {
            type: 'tool-call',
            toolCallId: `search-${turn}`,
            toolName: 'search_history',
            input: JSON.stringify({ query: 'violin story code word' }),
          },
        ];
      }
      return [{ type: 'text', text: `Noted: the ${TOPICS[turn % TOPICS.length]} story of turn ${turn}.` }];
    });
    const { engine } = processEngine(model);
    const running = await storyThenQuestion(
      engine,
      (at) => {
        const topic = TOPICS[at % TOPICS.length];
        return `Turn ${at}: my ${topic} story has the code word ${topic}-${at * 7}. Keep it in mind please.`;
      },
      'What was the code word of my violin story in turn 9? look it up',
      (at) => {
        turn = at;
      },
    );
    const calls = (await engine.listCalls(SESSION, { limit: 1000 })).filter(
      (call) => call.turnId === running.userMessageId && call.agentId === 'reader',
    );
    // The first step searched; the second was sent the result, the turn-9 message among it.
    expect(calls.length).toBeGreaterThanOrEqual(2);
    const searched = model.calls.find((sent) =>
      sent.prompt.some(
        (message) => message.role === 'tool' && JSON.stringify(message.content).includes('violin-63'),
      ),
    );
    expect(searched).toBeDefined();
    // …while the first step's report had it behind the cut (summarised, recalled or recallable).
    const first = calls[0]?.report.layers.find((layer) => layer.layer === 'history');
    expect(first?.kept.some((block) => block.id === 'history:human:raft-consensus:u-9')).toBe(false);
  });

  it("reports an agent's own steps dropped for room as recallable, and its search finds them (decision 070, fifth amendment)", async () => {
    await setWindow(3000);
    let asked = 0;
    const queries = ['violin story', 'glacier story', 'orchid story', 'pottery story', 'sailboat story'];
    const model = scriptedModel((options) => {
      const prompt = promptText(options);
      const offered = (options.tools ?? []).some((tool) => tool.name === 'search_history');
      const searches = model.calls.length - asked - 1;
      if (!offered || !prompt.includes('look it up')) {
        asked = model.calls.length;
        return [{ type: 'text', text: 'Noted.' }];
      }
      // Several searches in one turn, then one for what the first asked.
      const query = searches < queries.length ? queries[searches] : searches < 12 ? 'violin' : undefined;
      if (query === undefined) return [{ type: 'text', text: 'Found it.' }];
      const input = JSON.stringify({ query, limit: 8 });
      return [
        { type: 'tool-call', toolCallId: `s-${model.calls.length}`, toolName: 'search_history', input },
      ];
    });
    const { engine } = processEngine(model, 10);
    const running = await storyThenQuestion(
      engine,
      (at) =>
        `Turn ${at}: my ${TOPICS[at % TOPICS.length]} story has the code word ${at * 7}. ${'It is a long story, told slowly, with many turns and twists along the way. '.repeat(4)}`,
      'What were the code words of my stories? look it up',
    );
    const calls = (await engine.listCalls(SESSION, { limit: 1000 })).filter(
      (call) => call.turnId === running.userMessageId && call.agentId === 'reader',
    );
    const stepDrops = agentStepDrops(calls);
    expect(stepDrops.length).toBeGreaterThan(0);
    for (const drop of stepDrops) expect(drop.reason).toMatchObject(RECALLABLE_STEP_DROP);
    // A later search finds the turn's own earlier steps (ids `ai:…`, not stored yet).
    const found = model.calls.some((sent) =>
      sent.prompt.some(
        (message) => message.role === 'tool' && /id\\*":\\*"ai:/u.test(JSON.stringify(message.content)),
      ),
    );
    expect(found).toBe(true);
  });

  it("reports an agent's steps dropped for room as recallable before the session has any cut (decision 066, second amendment)", async () => {
    await setWindow(3000);
    let read = 0;
    const notes = tool({
      description: 'Read the next page of the story notes',
      inputSchema: z.object({ page: z.number() }),
      execute: async ({ page }) =>
        `Page ${page}: the lighthouse keeper counted ships at dawn. `.repeat(60) +
        `Code word: beacon-${page}.`,
    });
    const model = scriptedModel((options) => {
      const reading = (options.tools ?? []).some((offered) => offered.name === 'read_notes');
      if (!reading || read >= 8) return [{ type: 'text', text: 'Read them all.' }];
      read += 1;
      const input = JSON.stringify({ page: read });
      return [{ type: 'tool-call', toolCallId: `read-${read}`, toolName: 'read_notes', input }];
    });
    const { engine, store } = processEngine(model, 10, { read_notes: notes });
    await storedTurn(engine, 'Read my story notes, every page.', 'q');
    // The session's first turn: nothing is behind a cut.
    expect((await store.load(SESSION)).compression.summary).toBeNull();
    const calls = (await engine.listCalls(SESSION, { limit: 1000 })).filter(
      (call) => call.agentId === 'reader',
    );
    const stepDrops = agentStepDrops(calls);
    // The pages outgrow the window: older steps are dropped, each findable by the call's search.
    expect(stepDrops.length).toBeGreaterThan(0);
    for (const drop of stepDrops) expect(drop.reason).toMatchObject(RECALLABLE_STEP_DROP);
    for (const sent of model.calls)
      expect(sent.tools?.map((offered) => offered.name)).toContain('search_history');
  });

  it('lets an agent read a long message behind the cut whole: the hit’s handle, then open_artifact by pages (decision 073)', async () => {
    await setWindow(3000);
    let turn = 0;
    // Turn 9's message is ~2,600 characters; its code word is in its last line, past a hit's 1,200.
    const long = [
      'Turn 9: my violin story, at length.',
      ...Array.from(
        { length: 40 },
        (_, line) => `Part ${line}: the violin case stood by the window for a while.`,
      ),
      'The code word of my violin story is violin-63.',
    ].join('\n');
    const model = scriptedModel((options) => {
      const prompt = promptText(options);
      const offered = (options.tools ?? []).some((tool) => tool.name === 'search_history');
      const results = options.prompt.filter((message) => message.role === 'tool').length;
      if (offered && prompt.includes('look it up') && results === 0) {
        const input = JSON.stringify({ query: 'violin story code word', limit: 1 });
        return [{ type: 'tool-call', toolCallId: 'search', toolName: 'search_history', input }];
      }
      // The hit names its handle in `more`; a page names the next one.
      const newest = options.prompt.filter((message) => message.role === 'tool').at(-1);
      const text = newest === undefined ? '' : JSON.stringify(newest.content);
      const handle = /art_[0-9a-f]+/u.exec(text)?.[0];
      const follow = nextArtifactCall(options.prompt);
      if (
        prompt.includes('look it up') &&
        results < 12 &&
        (follow !== undefined || text.includes('"more"'))
      ) {
        const input = JSON.stringify(follow ?? { handle });
        return [{ type: 'tool-call', toolCallId: `open-${results}`, toolName: 'open_artifact', input }];
      }
      return [{ type: 'text', text: `Noted: turn ${turn}.` }];
    });
    // A 3,000-token window leaves a page ~260 characters: the reader takes up to 20 steps.
    const { engine } = processEngine(model, 20);
    await storyThenQuestion(
      engine,
      (at) => {
        const topic = TOPICS[at % TOPICS.length];
        return at === 9 ? long : `Turn ${at}: my ${topic} story has the code word ${topic}-${at * 7}.`;
      },
      'What was the code word of my violin story in turn 9? look it up',
      (at) => {
        turn = at;
      },
    );
    const asked = model.calls.filter((sent) => promptText(sent).includes('look it up'));
    // The search's hit is cut at 1,200 characters and says how to read the rest …
    const hit = asked.find((sent) => JSON.stringify(sent.prompt).includes('characters in all'));
    expect(JSON.stringify(hit?.prompt)).toContain('call open_artifact with');
    // … and the agent's open_artifact brought every line of the message into its calls.
    expect(asked.every((sent) => (sent.tools ?? []).some((tool) => tool.name === 'open_artifact'))).toBe(
      true,
    );
    expect(
      hasEveryLine(
        asked.map((sent) => sent.prompt),
        long,
      ),
    ).toBe(true);
  });

  it('recalls an older turn for the question that asks about it, and the preview is the call the agent then sends', async () => {
    await setWindow(3000);
    let turn = 0;
    const { engine, model } = processEngine(
      () => `Noted: the ${TOPICS[turn % TOPICS.length]} story of turn ${turn} is in my notes now.`,
    );
    for (turn = 0; turn < 30; turn++) {
      const topic = TOPICS[turn % TOPICS.length];
      const text = `Turn ${turn}: my ${topic} story has the code word ${topic}-${turn * 7}. Keep it in mind please.`;
      await storedTurn(engine, text, `u-${turn}`);
    }
    const question = 'What was the code word of my glacier story in turn 2?';
    const preview = await engine.compile(SESSION, { query: question });
    const running = await storedTurn(engine, question, 'q');
    const calls = await engine.listCalls(SESSION, { limit: 1000 });
    const asked = calls.find((call) => call.turnId === running.userMessageId && call.agentId === 'reader');
    expect(asked).toBeDefined();
    const call = asked as CallRecord;
    expect(accounting(call.report).recalled ?? 0).toBeGreaterThan(0);
    const sent = model.calls[calls.indexOf(call)]!;
    expect(JSON.stringify(sent.prompt)).toContain('glacier-14');
    // The preview is that call, but for the query's id (the message is not stored yet).
    const report = JSON.stringify(call.report).replaceAll(running.userMessageId, 'query:reader');
    // The counter's cache statistics are the process's, not the call's.
    const { cache: _sent, ...sentReport } = JSON.parse(report) as CompileReport;
    const { cache: _previewed, ...previewReport } = preview.report;
    expect(previewReport).toEqual(sentReport);
  });
});
