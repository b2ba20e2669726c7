import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { simulateReadableStream, type UIMessageChunk } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { countCallTokens } from '../ai-sdk/index.ts';
import { CtxloomError } from '../core/index.ts';
import { defineAgent } from '../runtime/agents/define-agent.ts';
import { SqliteSaver } from '../runtime/checkpoint/sqlite-saver.ts';
import { prompts, textModel } from '../runtime/processes/mock-model.test-support.ts';
import { createSequentialProcess } from '../runtime/processes/sequential.ts';
import { createTestNotebook } from '../server/test-workspace.test-support.ts';
import { createCharCounter } from '../testing/index.ts';
import { createCheckpointSessionStore } from './checkpoint-session-store.ts';
import { createSessionEngine } from './create-session-engine.ts';
import { createFileSessionStore } from './file-session-store.ts';
import { processEngineIn } from './process-engine.test-support.ts';

const SESSION = 'raft-consensus';
const directory = mkdtempSync(join(tmpdir(), 'ctxloom-process-turn-'));
const saver = new SqliteSaver({ path: join(directory, 'sessions.db'), durability: 'normal' });
afterAll(async () => {
  await saver.close();
  rmSync(directory, { recursive: true, force: true });
});

let notebook: Awaited<ReturnType<typeof createTestNotebook>>;
let thread = 0;
beforeEach(async () => {
  notebook = await createTestNotebook();
  thread += 1;
});
afterEach(async () => {
  await notebook.cleanup();
});

/** An engine on this file's saver, the test's notebook and a thread of its own. */
const processEngine = processEngineIn(() => ({ saver, workspace: notebook.workspace, thread }));

/** Rewrites the test session's manifest with `change`. */
async function editManifest(
  change: (config: Record<string, Record<string, unknown>>) => void,
): Promise<void> {
  const session = notebook.workspace.session(SESSION);
  const config = JSON.parse(await session.readText('context-config.json'));
  change(config);
  await session.writeText('context-config.json', JSON.stringify(config));
}

async function chunks(stream: ReadableStream<UIMessageChunk>): Promise<UIMessageChunk[]> {
  const out: UIMessageChunk[] = [];
  for await (const chunk of stream) out.push(chunk);
  return out;
}

describe('engine.runTurn on a runtime process', () => {
  it('runs the turn through the process and streams its logged calls and reply; each report is what the provider received', async () => {
    const { engine, store, model, counter } = processEngine();
    const turn = await engine.runTurn({ sessionId: SESSION, text: 'What is a term?', messageId: 'm1' });
    expect(turn.userMessageId).toBe(`human:${SESSION}:m1`);
    expect(turn.compiled).toBeUndefined();
    const streamed = await chunks(turn.stream);
    const reports = streamed.filter((chunk) => chunk.type === 'data-context-report');
    expect(reports).toHaveLength(1);
    // The reply streams as the provider sent it, word by word, in one text part.
    const deltas = streamed.filter((chunk) => chunk.type === 'text-delta');
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.map((chunk) => chunk.delta).join('')).toBe('A term is a logical clock.');
    expect(new Set(deltas.map((chunk) => chunk.id)).size).toBe(1);
    expect(streamed.filter((chunk) => chunk.type === 'text-start')).toHaveLength(1);
    expect(streamed.filter((chunk) => chunk.type === 'text-end')).toHaveLength(1);
    expect(streamed.at(-1)?.type).toBe('finish');
    const stored = await turn.stored;
    expect(stored.map((message) => [message.role, message.content])).toEqual([
      ['assistant', 'A term is a logical clock.'],
    ]);
    const calls = await engine.listCalls(SESSION);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ turnId: turn.userMessageId, step: 0, agentId: 'helper' });
    expect(calls[0]?.report.totalTokens).toBe(countCallTokens(model.calls[0]!, counter));
    const state = await store.load(SESSION);
    expect(state.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
  });

  it('streams the agent’s tokens as they arrive, before the turn ends', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let blocked!: () => void;
    const waiting = new Promise<'blocked'>((resolve) => {
      blocked = () => resolve('blocked');
    });
    const usage = {
      inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: 1, text: 1, reasoning: 0 },
    };
    // A provider that sends its first token, then waits until the test has seen it.
    const slow = new MockLanguageModelV4({
      doStream: async () => ({
        stream: new ReadableStream<LanguageModelV4StreamPart>({
          async start(controller) {
            controller.enqueue({ type: 'stream-start', warnings: [] });
            controller.enqueue({ type: 'text-start', id: 't' });
            controller.enqueue({ type: 'text-delta', id: 't', delta: 'A term ' });
            blocked();
            await gate;
            controller.enqueue({ type: 'text-delta', id: 't', delta: 'is a logical clock.' });
            controller.enqueue({ type: 'text-end', id: 't' });
            controller.enqueue({ type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage });
            controller.close();
          },
        }),
      }),
    });
    const { engine } = processEngine(slow);
    const started = await Promise.race([
      engine.runTurn({ sessionId: SESSION, text: 'What is a term?', messageId: 'm1' }),
      waiting,
    ]);
    // The turn is under way (its stream open) while the provider is still sending.
    expect(started).not.toBe('blocked');
    const turn = started as Exclude<typeof started, 'blocked'>;
    const reader = turn.stream.getReader();
    const before: UIMessageChunk[] = [];
    while (!before.some((chunk) => chunk.type === 'text-delta')) {
      const { value, done } = await reader.read();
      if (done) break;
      before.push(value);
    }
    expect(before.at(-1)).toMatchObject({ type: 'text-delta', delta: 'A term ' });
    // Nothing of the answer is stored yet: the agent's node has not finished.
    expect(await engine.listCalls(SESSION)).toHaveLength(0);
    release();
    const after: UIMessageChunk[] = [];
    for (let next = await reader.read(); !next.done; next = await reader.read()) after.push(next.value);
    expect(after.filter((chunk) => chunk.type === 'text-delta').map((chunk) => chunk.delta)).toEqual([
      'is a logical clock.',
    ]);
    expect(after.some((chunk) => chunk.type === 'data-context-report')).toBe(true);
    expect(after.at(-1)?.type).toBe('finish');
    expect((await turn.stored).map((message) => message.content)).toEqual(['A term is a logical clock.']);
  });

  it('answers through a graph that cannot stream: the stored reply and the logged call, each once, after the run', async () => {
    const counter = createCharCounter();
    const store = createCheckpointSessionStore({ saver, threadIdOf: (id) => `${id}-${thread}` });
    const compiled = createSequentialProcess({
      counter,
      blackboard: store.blackboard,
      agents: [
        defineAgent({
          id: 'helper',
          systemPrompt: 'You help.',
          model: textModel(() => 'A clock.'),
          window: 8000,
        }),
      ],
    }).compile({ checkpointer: saver });
    // The part of a graph the engine needs, without `stream`.
    const graph = {
      getState: compiled.getState.bind(compiled),
      invoke: compiled.invoke.bind(compiled),
      checkpointer: compiled.checkpointer,
    };
    const engine = createSessionEngine({ workspace: notebook.workspace, store, counter, process: { graph } });
    const streamed = await chunks(
      (await engine.runTurn({ sessionId: SESSION, text: 'A term?', messageId: 'm1' })).stream,
    );
    expect(streamed.filter((chunk) => chunk.type === 'data-context-report')).toHaveLength(1);
    expect(streamed.filter((chunk) => chunk.type === 'text-delta').map((chunk) => chunk.delta)).toEqual([
      'A clock.',
    ]);
    expect(streamed.at(-1)?.type).toBe('finish');
  });

  it('refuses a re-sent message id as a conflict, running nothing', async () => {
    const { engine, model } = processEngine();
    await chunks((await engine.runTurn({ sessionId: SESSION, text: 'hello', messageId: 'm1' })).stream);
    const error = await engine
      .runTurn({ sessionId: SESSION, text: 'hello', messageId: 'm1' })
      .catch((e) => e);
    expect(CtxloomError.is(error, 'conflict')).toBe(true);
    expect((error as CtxloomError).details).toMatchObject({ accepted: false });
    expect(model.calls).toHaveLength(1);
  });

  it('holds the session across a whole turn: a second turn sent at once builds its context after the first is stored', async () => {
    const { engine, model, store } = processEngine((_prompt, index) => `answer ${index}`);
    const turn = async (messageId: string, text: string) => {
      const running = await engine.runTurn({ sessionId: SESSION, text, messageId });
      await chunks(running.stream);
      await running.stored;
    };
    await Promise.all([
      turn('m1', 'First question about terms?'),
      turn('m2', 'Second question about votes?'),
    ]);
    // The manifest's `once` injection (guidance.md's 练习题) reaches one turn, not both: the
    // second turn's context is read from the state the first one stored.
    const carrying = prompts(model).filter((prompt) => prompt.includes('为什么 follower 必须持久化'));
    expect(carrying).toHaveLength(1);
    // Question, answer, question, answer — in the order they were sent.
    const stored = (await store.load(SESSION)).messages.map((message) => message.role);
    expect(stored).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(prompts(model)[1]).toContain('answer 0');
  });

  it('sends the agent the session’s curation and never a chat command', async () => {
    const { engine, model } = processEngine((_prompt, index) => `answer ${index}`);
    await chunks(
      (await engine.runTurn({ sessionId: SESSION, text: 'my token is hunter2', messageId: 'm1' })).stream,
    );
    await chunks(
      (await engine.runTurn({ sessionId: SESSION, text: 'what is a term?', messageId: 'm2' })).stream,
    );
    await engine.curate(SESSION, {
      action: 'dismiss',
      targetMessageIds: [`human:${SESSION}:m1`],
      summary: 'a secret, not needed',
    });
    const command = await engine.runTurn({ sessionId: SESSION, text: '/compress requirement' });
    const reply = (await command.stored)[0];
    expect(reply?.metadata?.command).toBe('compress');
    expect(String(reply?.content)).toMatch(/^\/compress requirement: done/);
    await chunks((await engine.runTurn({ sessionId: SESSION, text: 'and a log?', messageId: 'm3' })).stream);
    const last = prompts(model).at(-1) ?? '';
    expect(last).not.toContain('hunter2');
    expect(last).toContain('a secret, not needed');
    expect(last).not.toContain('/compress');
    expect(last).toContain('what is a term?');
    expect(model.calls).toHaveLength(3);
  });

  it('writes the curated history’s placeholders in the language the session manifest names', async () => {
    const manifest = notebook.workspace.session(SESSION);
    const config = JSON.parse(await manifest.readText('context-config.json'));
    config.chatHistory.placeholderLocale = 'en';
    await manifest.writeText('context-config.json', JSON.stringify(config));
    const { engine, model } = processEngine((_prompt, index) => `answer ${index}`);
    await chunks(
      (await engine.runTurn({ sessionId: SESSION, text: 'my token is hunter2', messageId: 'm1' })).stream,
    );
    await engine.curate(SESSION, { action: 'dismiss', targetMessageIds: [`human:${SESSION}:m1`] });
    await chunks(
      (await engine.runTurn({ sessionId: SESSION, text: 'what is a term?', messageId: 'm2' })).stream,
    );
    const last = prompts(model).at(-1) ?? '';
    expect(last).toContain('[user message #1 — user judged]');
    expect(last).not.toContain('用户');
    expect(last).not.toContain('hunter2');
  });

  it('logs a process turn’s calls and a chat turn’s calls of one session through one writer: same fields, each report what its provider received', async () => {
    const { engine, store, model, counter } = processEngine();
    const chatModel = new MockLanguageModelV4({
      doStream: async () => ({
        stream: simulateReadableStream({
          chunks: [
            { type: 'stream-start', warnings: [] },
            { type: 'text-start', id: 't' },
            { type: 'text-delta', id: 't', delta: 'Terms order leaders.' },
            { type: 'text-end', id: 't' },
            {
              type: 'finish',
              finishReason: { unified: 'stop', raw: 'stop' },
              usage: {
                inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
                outputTokens: { total: 1, text: 1, reasoning: 0 },
              },
            },
          ] satisfies LanguageModelV4StreamPart[],
        }),
      }),
    });
    let next = 0;
    const chat = createSessionEngine({
      workspace: notebook.workspace,
      store,
      counter,
      model: { model: chatModel, spec: 'mock:chat', offline: false },
      createId: () => `chat-${++next}`,
    });
    const processTurn = await engine.runTurn({
      sessionId: SESSION,
      text: 'What is a term?',
      messageId: 'm1',
    });
    await chunks(processTurn.stream);
    const chatTurn = await chat.runTurn({ sessionId: SESSION, text: 'And a leader?', messageId: 'm2' });
    await chunks(chatTurn.stream);
    await chatTurn.stored;

    const calls = await engine.listCalls(SESSION);
    const processCalls = calls.filter((call) => call.turnId === processTurn.userMessageId);
    const chatCalls = calls.filter((call) => call.turnId === chatTurn.userMessageId);
    expect(processCalls).toHaveLength(1);
    expect(chatCalls).toHaveLength(1);
    const [processCall, chatCall] = [processCalls[0]!, chatCalls[0]!];
    // The same record: only a process's call names the agent that made it.
    expect(processCall.agentId).toBe('helper');
    expect(Object.keys(chatCall).sort()).toEqual(
      Object.keys(processCall)
        .filter((key) => key !== 'agentId')
        .sort(),
    );
    for (const call of [processCall, chatCall]) {
      expect(call.step).toBe(0);
      expect(Number.isNaN(Date.parse(call.at))).toBe(false);
      expect(call.messageFingerprints.length).toBeGreaterThan(0);
    }
    expect(chatCall.model).toBe('mock:chat');
    // Each report is what its provider received.
    expect(model.calls).toHaveLength(1);
    expect(chatModel.doStreamCalls).toHaveLength(1);
    expect(processCall.report.totalTokens).toBe(countCallTokens(model.calls[0]!, counter));
    expect(chatCall.report.totalTokens).toBe(countCallTokens(chatModel.doStreamCalls[0]!, counter));
  });

  it('sends the agent the session manifest’s layers beside its own prompt: prompts, profile blocks, injections', async () => {
    const { engine, model, counter } = processEngine();
    await chunks(
      (await engine.runTurn({ sessionId: SESSION, text: 'What is a term?', messageId: 'm1' })).stream,
    );
    const sent = model.calls[0]!;
    const system = sent.prompt.find((message) => message.role === 'system')?.content ?? '';
    // The global and session prompts the manifest names, then the agent's private prompt.
    expect(system).toMatch(/^# 角色 \/ Role/u);
    expect(system).toContain('本次学习主题：Raft 共识算法');
    expect(system.indexOf('本次学习主题')).toBeLessThan(system.indexOf('You help.'));
    const prompt = prompts(model)[0] ?? '';
    // An `always` injection (the profile's 讲解方式 block) and the milestones file.
    expect(prompt).toContain('先画图（ASCII 即可）再讲细节');
    expect(prompt).toContain('Raft 学习里程碑');
    const [call] = await engine.listCalls(SESSION);
    expect(call?.report.totalTokens).toBe(countCallTokens(sent, counter));
  });

  it('compiles an agent’s call under the session manifest as a chat turn of the session: its window, reserve, allocations, order and the turn’s references; each report what its provider received', async () => {
    // A small window (below the agent's 20 000), a retrieval share, seed 000's order, and two
    // manifest references (a block and a line range) pending for the next message.
    await editManifest((config) => {
      config.budget = {
        model: 'gpt-4o',
        window: 12000,
        outputReserve: 0.2,
        allocations: { 'workspace-retrieval': 0.1 },
      };
      config.layers = { ...config.layers, order: 'default' };
    });
    const { engine, store, model, counter } = processEngine(() => 'Commit needs a majority.', {
      preview: true,
      window: 20_000,
    });
    const chatModel = textModel(() => 'Terms order leaders.');
    let next = 0;
    const chat = createSessionEngine({
      workspace: notebook.workspace,
      store,
      counter,
      model: { model: chatModel, spec: 'mock:chat', offline: false },
      createId: () => `chat-${++next}`,
    });
    const processText = 'How do these relate? [ground-truth.md:60:64]';
    // The process's preview is the call its agent sends next, with the same manifest.
    const preview = await engine.compile(SESSION, { query: processText });
    const processTurn = await engine.runTurn({ sessionId: SESSION, text: processText, messageId: 'm1' });
    await chunks(processTurn.stream);
    const chatTurn = await chat.runTurn({
      sessionId: SESSION,
      text: 'And this? [milestones.md:1:3]',
      messageId: 'm2',
    });
    await chunks(chatTurn.stream);
    await chatTurn.stored;

    const calls = await engine.listCalls(SESSION);
    const processCall = calls.find((call) => call.turnId === processTurn.userMessageId);
    const chatCall = calls.find((call) => call.turnId === chatTurn.userMessageId);
    expect(model.calls).toHaveLength(1);
    expect(chatModel.calls).toHaveLength(1);
    const [processSent, chatSent] = [model.calls[0]!, chatModel.calls[0]!];
    for (const [call, sent] of [
      [processCall, processSent],
      [chatCall, chatSent],
    ] as const) {
      // The report is what the provider received, its reserve the output limit.
      expect(call?.report.totalTokens).toBe(countCallTokens(sent, counter));
      expect(sent.maxOutputTokens).toBe(call?.report.outputReserve);
      // The manifest's budget and order, not the agent's window nor core's defaults.
      expect(call?.report).toMatchObject({
        window: 12000,
        outputReserve: 2400,
        inputBudget: 9600,
        order: 'default',
      });
      const retrieval = call?.report.sources.find((source) => source.name === 'workspace-retrieval');
      expect(retrieval?.allocatedTokens).toBeGreaterThan(0);
      // Seed 000's order: every context layer (system messages) before the conversation.
      const roles = sent.prompt.map((message) => message.role);
      expect(roles.lastIndexOf('system')).toBeLessThan(roles.indexOf('user'));
    }
    // The preview is that call, but for the query's id: the previewed message is not stored yet.
    const sentReport = JSON.stringify(processCall?.report).replaceAll(
      processTurn.userMessageId,
      'query:helper',
    );
    // Less the counter's cache statistics (a process counts through a shared token cache, its
    // hits grow with every call; the preview here counts with the bare counter).
    const { cache: _cache, ...sentFields } = JSON.parse(sentReport);
    expect(preview.report).toEqual(sentFields);
    const sentText = (sent: typeof processSent) => JSON.stringify(sent.prompt);
    // The process turn's message carries its inline reference and the manifest's two.
    const passages = [
      '<reference source=\\"ground-truth.md:60-64\\"',
      '<reference source=\\"guidance.md:40-44\\"',
      'block=\\"Raft 知识要点（ground truth）/领导者选举/选举限制\\"',
    ];
    for (const passage of passages) expect(sentText(processSent)).toContain(passage);
    expect(preview.references.map((reference) => reference.path).sort()).toEqual([
      'ground-truth.md',
      'ground-truth.md',
      'guidance.md',
    ]);
    // Stored as written, with the references' provenance: the chat turn after it does not
    // attach the manifest's references again, and sends its own.
    const stored = (await store.load(SESSION)).messages.find(
      (message) => message.id === processTurn.userMessageId,
    );
    expect(stored?.content).toBe(processText);
    expect(stored?.metadata?.manifestReferences).toHaveLength(2);
    // …and the `once` injection (the guidance's exercises) it delivered is not sent again.
    expect(stored?.metadata?.injections).toHaveLength(1);
    const injected = (call: typeof processCall) =>
      call?.report.layers.find((layer) => layer.layer === 'todo__context')?.kept.map((block) => block.id);
    const exercises = 'injection:guidance.md#教学指南：Raft 共识/练习题';
    expect(injected(processCall)).toContain(exercises);
    expect(injected(chatCall)).not.toContain(exercises);
    expect(sentText(chatSent)).toContain('<reference source=\\"milestones.md:1-3\\"');
    expect(sentText(chatSent)).not.toContain('<reference source=\\"guidance.md:40-44\\"');
  });

  it('has no single next call to preview, and needs the checkpoint store', async () => {
    const { engine } = processEngine();
    await expect(engine.compile(SESSION)).rejects.toMatchObject({ code: 'invalid-config' });
    const graph = createSequentialProcess({
      counter: createCharCounter(),
      agents: [defineAgent({ id: 'helper', systemPrompt: 'You help.', model: textModel(() => '') })],
    }).compile();
    expect(() =>
      createSessionEngine({
        workspace: notebook.workspace,
        store: createFileSessionStore({ workspace: notebook.workspace }),
        process: { graph },
      }),
    ).toThrow(/checkpoint session store/);
  });
});
