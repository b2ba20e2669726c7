import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BaseMessage, ToolMessage } from '@langchain/core/messages';
import { StateGraph } from '@langchain/langgraph';
import { tool } from 'ai';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createOrchestrator, type Message } from '../core/index.ts';
import { defineAgent } from '../runtime/agents/define-agent.ts';
import { PostgresSaver } from '../runtime/checkpoint/postgres-saver.ts';
import { SqliteSaver } from '../runtime/checkpoint/sqlite-saver.ts';
import { prompts, scriptedModel, textModel } from '../runtime/processes/mock-model.test-support.ts';
import { createSequentialProcess } from '../runtime/processes/sequential.ts';
import { submitInput } from '../runtime/session/submit-input.ts';
import { Blackboard, createBlackboard, StateBuilder } from '../state/index.ts';
import { createCharCounter, describeSessionStoreConformance } from '../testing/index.ts';
import { createCheckpointSessionStore } from './checkpoint-session-store.ts';
import { createPostgresThreadLock } from './postgres-thread-lock.ts';
import type { CallRecord } from './session-store.ts';

const directory = mkdtempSync(join(tmpdir(), 'ctxloom-checkpoint-store-'));
const sqlite = new SqliteSaver({ path: join(directory, 'sessions.db'), durability: 'normal' });
let counter = 0;
const newSession = () => {
  counter += 1;
  return `session-${counter}`;
};

const url = process.env.CTXLOOM_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `ctxloom_session_${process.pid}_${Date.now().toString(36)}`;
const postgres = new PostgresSaver({ connectionString: url, schema });
const lock = createPostgresThreadLock({ connectionString: url, scope: schema });

afterAll(async () => {
  await sqlite.close();
  await postgres.close();
  await lock.close();
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.end();
  rmSync(directory, { recursive: true, force: true });
});

// Every write replays the thread's delta channels (LangGraph's ancestor walk), so the call-log
// test runs at a small capacity; the bound is the same code at any capacity.
const callCapacity = 12;
describeSessionStoreConformance(
  'sqlite checkpoints',
  () => createCheckpointSessionStore({ saver: sqlite, kind: 'sqlite', callCapacity }),
  { newSession, callCapacity },
);
describeSessionStoreConformance(
  'postgres checkpoints',
  () => createCheckpointSessionStore({ saver: postgres, kind: 'postgres', lock, callCapacity }),
  { newSession, callCapacity },
);

const call = (id: string): CallRecord => ({
  id,
  turnId: 'u1',
  step: 0,
  at: '2026-01-01T00:00:00.000Z',
  model: 'offline',
  report: { totalTokens: 1 } as unknown as CallRecord['report'],
  messageFingerprints: [],
});

describe('createCheckpointSessionStore', () => {
  it('is the LangGraph state: a runtime process on the same thread sees the session and the store sees its reply', async () => {
    const store = createCheckpointSessionStore({ saver: sqlite });
    const id = newSession();
    await store.appendMessages(id, [
      { id: 'u0', role: 'user', content: 'my name is Ada' },
      { id: 'a0', role: 'assistant', content: 'hello Ada', metadata: { model: 'offline' } },
    ]);
    const model = textModel(() => 'you are Ada');
    const graph = createSequentialProcess({
      counter: createCharCounter(),
      agents: [defineAgent({ id: 'helper', systemPrompt: 'You help.', model })],
    }).compile({ checkpointer: sqlite });
    await submitInput({
      graph,
      config: { configurable: { thread_id: id } },
      input: { inputId: 'in-1', content: 'who am I?' },
      session: { namespace: '', sessionId: id },
    });
    expect(prompts(model)[0]).toContain('my name is Ada');
    expect(prompts(model)[0]).toContain('hello Ada');
    const state = await store.load(id);
    expect(state.messages.map((message) => [message.role, message.content])).toEqual([
      ['user', 'my name is Ada'],
      ['assistant', 'hello Ada'],
      ['user', 'who am I?'],
      ['assistant', 'you are Ada'],
    ]);
    expect(state.messages[1]?.metadata).toEqual({ model: 'offline' });
    // After the run the thread is idle: the store writes on it again.
    await store.appendMessages(id, [{ id: 'u9', role: 'user', content: 'thanks' }]);
    expect((await store.load(id)).messages).toHaveLength(5);
  });

  it('stores a tool message with two results as one ToolMessage per result, each paired with its call, and loads it exactly', async () => {
    const store = createCheckpointSessionStore({ saver: sqlite });
    const id = newSession();
    const messages: Message[] = [
      { id: 'u1', role: 'user', content: 'rows and errors?' },
      {
        id: 'a1',
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 'c1', toolName: 'count', input: { table: 'orders' } },
          { type: 'tool-call', toolCallId: 'c2', toolName: 'grep', input: { pattern: 'ERROR' } },
        ],
      },
      {
        id: 't1',
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'c1', toolName: 'count', output: { type: 'json', value: 42 } },
          {
            type: 'tool-result',
            toolCallId: 'c2',
            toolName: 'grep',
            output: { type: 'error-text', value: 'none' },
          },
        ],
      },
    ];
    await store.appendMessages(id, messages);
    // What a LangChain reader of the thread sees: every tool call has its ToolMessage.
    const graph = createSequentialProcess({
      counter: createCharCounter(),
      blackboard: store.blackboard,
      agents: [defineAgent({ id: 'helper', systemPrompt: 'You help.', model: textModel(() => '') })],
    }).compile({ checkpointer: sqlite });
    const thread = (await graph.getState({ configurable: { thread_id: id } })).values as {
      messages: BaseMessage[];
    };
    const results = thread.messages.filter((message) => ToolMessage.isInstance(message)) as ToolMessage[];
    expect(results.map((message) => [message.tool_call_id, message.status])).toEqual([
      ['c1', 'success'],
      ['c2', 'error'],
    ]);
    expect((await store.load(id)).messages).toEqual(messages);
  });

  it('decodes each stored message once: loads share it frozen, in arrays of their own (decision 078)', async () => {
    const store = createCheckpointSessionStore({ saver: sqlite });
    const id = newSession();
    await store.appendMessages(id, [
      { id: 'u1', role: 'user', content: 'What is a term?' },
      { id: 'a1', role: 'assistant', content: [{ type: 'text', text: 'A logical clock.' }] },
    ]);
    const first = await store.load(id);
    const second = await store.load(id);
    expect(second.messages).not.toBe(first.messages);
    expect(second.messages[1]).toBe(first.messages[1]);
    expect(Object.isFrozen(first.messages[1])).toBe(true);
    const part = (first.messages[1] as { content: { text: string }[] }).content[0] as { text: string };
    expect(() => {
      part.text = 'changed';
    }).toThrow(TypeError);
    // The state's arrays are the caller's: changing one changes no other load.
    first.messages.pop();
    first.curation.push({ type: 'pin', targetMessageId: 'u1', at: '2026-11-30T00:00:00.000Z' } as never);
    await store.appendMessages(id, [{ id: 'u2', role: 'user', content: 'And an index?' }]);
    const third = await store.load(id);
    expect(third.messages.map((message) => message.id)).toEqual(['u1', 'a1', 'u2']);
    expect(third.messages[1]).toBe(second.messages[1]);
    expect(third.curation).toEqual([]);
  });

  it('lists each call record frozen, shared between listings, in arrays of their own', async () => {
    const store = createCheckpointSessionStore({ saver: sqlite });
    const id = newSession();
    await store.appendMessages(id, [{ id: 'u1', role: 'user', content: 'What is a term?' }]);
    const record: CallRecord = {
      id: 'c1',
      turnId: 'u1',
      step: 0,
      at: '2026-11-30T00:00:00.000Z',
      model: 'offline',
      report: (await createOrchestrator({ counter: createCharCounter(), window: 200 }).build({ query: 'q' }))
        .report,
      messageFingerprints: ['user:u1'],
    };
    await store.appendCall(id, record);
    // The caller's record stays its own: changing it changes nothing stored.
    record.model = 'changed';
    const first = await store.listCalls(id);
    const second = await store.listCalls(id);
    expect(first).not.toBe(second);
    expect(second[0]).toBe(first[0]);
    expect(first[0]?.model).toBe('offline');
    expect(Object.isFrozen(first[0]?.report.layers)).toBe(true);
    expect(() => {
      (first[0] as CallRecord).model = 'changed';
    }).toThrow(TypeError);
    first.pop();
    await store.appendCall(id, { ...record, id: 'c2' });
    const third = await store.listCalls(id);
    expect(third.map((call) => call.id)).toEqual(['c1', 'c2']);
    // Read back from the saver by another store: the same values, frozen again.
    const again = await createCheckpointSessionStore({ saver: sqlite }).listCalls(id);
    expect(again).toEqual(third);
    expect(Object.isFrozen(again[1])).toBe(true);
  });

  it('logs every model call a runtime agent sends, one per tool-loop step, in the session call log', async () => {
    const store = createCheckpointSessionStore({ saver: sqlite, callCapacity });
    const id = newSession();
    const model = scriptedModel((_options, index) =>
      index === 0
        ? [{ type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input: '{"term":"quorum"}' }]
        : [{ type: 'text', text: 'a majority' }],
    );
    const lookup = tool({
      description: 'Look a term up',
      inputSchema: z.object({ term: z.string() }),
      execute: async ({ term }) => `${term}: more than half of the servers. `.repeat(20),
    });
    const graph = createSequentialProcess({
      counter: createCharCounter(),
      blackboard: store.blackboard,
      agents: [
        defineAgent({ id: 'helper', systemPrompt: 'You help.', model, tools: { lookup }, maxSteps: 3 }),
      ],
    }).compile({ checkpointer: sqlite });
    await submitInput({
      graph,
      config: { configurable: { thread_id: id } },
      input: { inputId: 'in-1', content: 'what is a quorum?' },
      session: { namespace: '', sessionId: id },
    });
    const calls = await store.listCalls(id);
    const userId = (await store.load(id)).messages.find((message) => message.role === 'user')?.id;
    expect(calls.map((call) => [call.agentId, call.turnId, call.step])).toEqual([
      ['helper', userId, 0],
      ['helper', userId, 1],
    ]);
    // The second call carries the tool result: its report says so.
    expect(calls[1]?.report.totalTokens).toBeGreaterThan((calls[0]?.report.totalTokens ?? 0) + 400);
    // Its tools, with the `open_artifact` that reads what its placeholders name (counted too).
    expect(calls[0]?.report.tools?.names).toEqual(['lookup', 'open_artifact']);
  });

  it('writes the summary text to compression__context, where runtime agents read it', async () => {
    const store = createCheckpointSessionStore({ saver: sqlite });
    const id = newSession();
    await store.appendMessages(id, [{ id: 'u1', role: 'user', content: 'x' }]);
    const summary = {
      text: 'Earlier: x.',
      fromMessageId: 'u1',
      throughMessageId: 'u1',
      coveredCount: 1,
      summarizer: 'extractive (offline)',
      createdAt: '2026-01-01T00:00:00.000Z',
    };
    await store.saveCompression(
      id,
      { summary, structured: null, processedThrough: { requirements: null, artifacts: null } },
      { expectedRevision: 0 },
    );
    const tuple = await sqlite.getTuple({ configurable: { thread_id: id, checkpoint_ns: '' } });
    expect(tuple?.checkpoint.channel_values.compression__context).toBe('Earlier: x.');
  });

  it('reads a summary a runtime agent wrote with its coverage, and never claims one written without', async () => {
    const store = createCheckpointSessionStore({ saver: sqlite });
    const id = newSession();
    await store.appendMessages(id, [
      { id: 'u1', role: 'user', content: 'a' },
      { id: 'a1', role: 'assistant', content: 'b' },
      { id: 'u2', role: 'user', content: 'c' },
    ]);
    const summarise = (through?: string) =>
      new StateGraph(Blackboard.schema)
        .addNode('agent', (state) => {
          const sb = new StateBuilder(state);
          sb.compression.persistCompression(`runtime summary ${through ?? 'without coverage'}`, through);
          return sb.patch();
        })
        .addEdge('__start__', 'agent')
        .addEdge('agent', '__end__')
        .compile({ checkpointer: sqlite });
    await summarise('a1').invoke({}, { configurable: { thread_id: id } });
    expect((await store.load(id)).compression.summary).toMatchObject({
      text: 'runtime summary a1',
      fromMessageId: 'u1',
      throughMessageId: 'a1',
      coveredCount: 2,
    });
    await summarise().invoke({}, { configurable: { thread_id: id } });
    expect((await store.load(id)).compression.summary).toBeNull();
  });

  it('keeps the call log bounded to its capacity', async () => {
    const store = createCheckpointSessionStore({ saver: sqlite, callCapacity: 3 });
    const id = newSession();
    for (let index = 0; index < 5; index++) await store.appendCall(id, call(`c${index}`));
    expect((await store.listCalls(id)).map((record) => record.id)).toEqual(['c2', 'c3', 'c4']);
  });

  it('refuses, storing nothing, a thread holding fields it does not know instead of dropping them', async () => {
    const blackboard = createBlackboard({ extensions: { score: z.number().default(0) } });
    const id = newSession();
    const config = { configurable: { thread_id: id } };
    const { StateGraph } = await import('@langchain/langgraph');
    const graph = new StateGraph(blackboard.schema)
      .addNode('scorer', () => ({ score: 7 }))
      .addEdge('__start__', 'scorer')
      .addEdge('scorer', '__end__')
      .compile({ checkpointer: sqlite });
    await graph.invoke({}, config);
    const store = createCheckpointSessionStore({ saver: sqlite });
    await expect(store.appendMessages(id, [{ id: 'u1', role: 'user', content: 'x' }])).rejects.toMatchObject({
      code: 'conflict',
      path: 'score',
    });
    const extended = createCheckpointSessionStore({
      saver: sqlite,
      extensions: { score: z.number().default(0) },
    });
    await extended.appendMessages(id, [{ id: 'u1', role: 'user', content: 'x' }]);
    expect((await graph.getState(config)).values).toMatchObject({ score: 7 });
    expect((await extended.load(id)).messages.map((message) => message.id)).toEqual(['u1']);
  });

  it('refuses an invalid message with its index, storing nothing', async () => {
    const store = createCheckpointSessionStore({ saver: sqlite });
    const id = newSession();
    const bad = { id: 'x', role: 'robot', content: 'y' } as unknown as Parameters<
      typeof store.appendMessages
    >[1][0];
    await expect(
      store.appendMessages(id, [{ id: 'ok', role: 'user', content: 'fine' }, bad]),
    ).rejects.toMatchObject({ code: 'invalid-argument', path: '1.role' });
    expect((await store.load(id)).messages).toEqual([]);
  });

  it('refuses a tool result whose output lacks its value, or a part its role cannot carry, storing nothing', async () => {
    const store = createCheckpointSessionStore({ saver: sqlite });
    const id = newSession();
    const call: Message = {
      id: 'a1',
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'search', input: {} }],
    };
    const noValue = {
      id: 't1',
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'search', output: { type: 'text' } }],
    } as unknown as Message;
    await expect(store.appendMessages(id, [call, noValue])).rejects.toMatchObject({
      code: 'invalid-argument',
      path: '1.content.0.output.value',
    });
    const textInTool: Message = { id: 't1', role: 'tool', content: [{ type: 'text', text: 'found' }] };
    await expect(store.appendMessages(id, [call, textInTool])).rejects.toMatchObject({
      code: 'invalid-argument',
      path: '1.content.0.type',
      message: expect.stringContaining('a tool message cannot carry a text part'),
    });
    expect((await store.load(id)).messages).toEqual([]);
  });

  it('serves reads from its head cache only while the head is the checkpoint it cached', async () => {
    const first = createCheckpointSessionStore({ saver: sqlite, callCapacity: 2 });
    const second = createCheckpointSessionStore({ saver: sqlite, callCapacity: 2 });
    const id = newSession();
    await first.appendMessages(id, [{ id: 'u1', role: 'user', content: 'one' }]);
    await first.appendCall(id, call('c1'));
    await first.appendCuration(id, [
      { id: 'e1', type: 'exclude', targetMessageId: 'u1', by: 'user', at: '2026-01-01T00:00:00.000Z' },
    ]);
    await first.appendCall(id, call('c2'));
    await first.appendCall(id, call('c3'));
    await first.saveCompression(
      id,
      { summary: null, structured: null, processedThrough: { requirements: null, artifacts: null } },
      { expectedRevision: 0 },
    );
    // What the writer folded into its cache is what a fresh replay reads.
    expect(await first.load(id)).toEqual(await second.load(id));
    expect(await first.listCalls(id)).toEqual(await second.listCalls(id));
    // Another writer moves the head: the first store's cache misses and it reads the new state.
    await second.appendMessages(id, [{ id: 'u2', role: 'user', content: 'two' }]);
    expect((await first.load(id)).messages.map((message) => message.id)).toEqual(['u1', 'u2']);
    await expect(
      first.appendMessages(id, [{ id: 'u2', role: 'user', content: 'again' }]),
    ).rejects.toMatchObject({
      code: 'conflict',
    });
  });

  it('queues the writes of two stores over one saver in one process', async () => {
    const stores = [
      createCheckpointSessionStore({ saver: sqlite }),
      createCheckpointSessionStore({ saver: sqlite }),
    ];
    const id = newSession();
    const ids = Array.from({ length: 8 }, (_, index) => `m${index}`);
    await Promise.all(
      ids.map((messageId, index) =>
        stores[index % 2]?.appendMessages(id, [{ id: messageId, role: 'user', content: messageId }]),
      ),
    );
    expect((await stores[0]?.load(id))?.messages.map((message) => message.id).sort()).toEqual(ids);
  });

  // Issue 27, item 6: a kill between a write's pending writes and its checkpoint left writes on
  // the head under the task id the next update derives from that head, so the next write's
  // messages were dropped as duplicates (a fresh reader lost the question, kept the answer).
  for (const [name, saver, storeLock] of [
    ['sqlite', sqlite, undefined],
    ['postgres', postgres, lock],
  ] as const) {
    it(`keeps every write after one was cut off between its writes and its checkpoint (${name})`, async () => {
      let cut = false;
      // The saver as a killed process left it: the write's pending writes are stored, its checkpoint is not.
      const cutting = new Proxy(saver, {
        get(target, key) {
          if (key === 'put' && cut) return async () => Promise.reject(new Error('killed before put'));
          const value: unknown = Reflect.get(target, key);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      const options = storeLock === undefined ? {} : { lock: storeLock };
      const killed = createCheckpointSessionStore({ saver: cutting, ...options });
      const id = newSession();
      await killed.appendMessages(id, [{ id: 'u1', role: 'user', content: 'one' }]);
      cut = true;
      await expect(killed.appendCall(id, call('c1'))).rejects.toThrow('killed before put');
      cut = false;
      // A new process: its own store and head cache.
      const next = createCheckpointSessionStore({ saver, ...options });
      await next.appendMessages(id, [{ id: 'u2', role: 'user', content: 'two' }]);
      await next.appendCall(id, call('c2'));
      await next.appendMessages(id, [{ id: 'a2', role: 'assistant', content: 'answer' }]);
      const fresh = createCheckpointSessionStore({ saver, ...options });
      expect((await fresh.load(id)).messages.map((message) => message.id)).toEqual(['u1', 'u2', 'a2']);
      // The cut-off write stored nothing: no reader saw it, and the call log holds only c2.
      expect((await fresh.listCalls(id)).map((record) => record.id)).toEqual(['c2']);
      expect(await fresh.load(id)).toEqual(await next.load(id));
    });
  }

  it('maps sessions to threads with threadIdOf', async () => {
    const store = createCheckpointSessionStore({ saver: sqlite, threadIdOf: (id) => `notebook:${id}` });
    const id = newSession();
    await store.appendMessages(id, [{ id: 'u1', role: 'user', content: 'x' }]);
    expect(await sqlite.getTuple({ configurable: { thread_id: id, checkpoint_ns: '' } })).toBeUndefined();
    expect(
      await sqlite.getTuple({ configurable: { thread_id: `notebook:${id}`, checkpoint_ns: '' } }),
    ).toBeDefined();
  });
});
