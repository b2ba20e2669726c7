import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { DeltaValue, messagesDeltaReducer, StateGraph, StateSchema } from '@langchain/langgraph';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PostgresSaver } from './postgres-saver.ts';
import type { SqlCheckpointSaver } from './sql-checkpoint-saver.ts';
import { SqliteSaver } from './sqlite-saver.ts';

const url = process.env.CTXLOOM_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `ctxloom_saver_${process.pid}_${Date.now().toString(36)}`;
const pool = new pg.Pool({ connectionString: url, max: 4 });
const directory = mkdtempSync(join(tmpdir(), 'ctxloom-saver-'));

beforeAll(async () => {
  await pool.query(`CREATE SCHEMA "${schema}"`);
});
afterAll(async () => {
  await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await pool.end();
  rmSync(directory, { recursive: true, force: true });
});

type SizedSaver = SqlCheckpointSaver & { sizeBytes(): Promise<number> };

const kinds: { name: string; open: (name: string) => SizedSaver }[] = [
  {
    name: 'SqliteSaver',
    open: (name) => new SqliteSaver({ path: join(directory, `${name}.db`), durability: 'normal' }),
  },
  { name: 'PostgresSaver', open: (name) => new PostgresSaver({ pool, schema, prefix: `${name}_` }) },
];

function chatGraph(snapshotFrequency: number) {
  const State = new StateSchema({
    messages: new DeltaValue(
      z.array(z.custom<BaseMessage>()).default(() => []),
      {
        reducer: messagesDeltaReducer as (state: BaseMessage[], writes: BaseMessage[][]) => BaseMessage[],
        snapshotFrequency,
      },
    ),
    turns: z.number().default(0),
  });
  return new StateGraph(State)
    .addNode('reply', (state) => ({
      messages: [
        new AIMessage({
          content: `reply ${state.messages.length} ${'x'.repeat(200)}`,
          id: `ai-${state.messages.length}`,
        }),
      ],
    }))
    .addNode('count', (state) => ({ turns: state.turns + 1 }))
    .addEdge('__start__', 'reply')
    .addEdge('reply', 'count')
    .addEdge('count', '__end__');
}

async function chat(
  saver: SqlCheckpointSaver,
  threadId: string,
  turns: number,
  { snapshotFrequency = 1000, firstTurn = 0 } = {},
) {
  const app = chatGraph(snapshotFrequency).compile({ checkpointer: saver });
  const config = { configurable: { thread_id: threadId } };
  for (let turn = firstTurn; turn < firstTurn + turns; turn += 1) {
    await app.invoke(
      {
        messages: [
          new HumanMessage({
            content: `question ${turn} ${'y'.repeat(200)}`,
            id: `human-${threadId}-${turn}`,
          }),
        ],
      },
      config,
    );
  }
  return { app, config };
}

describe.each(kinds)('$name', ({ open }) => {
  it('restores a graph in a new saver instance with every message once', async () => {
    const first = open('restore');
    await chat(first, 'restore', 6);
    await first.close();
    const second = open('restore');
    const { app, config } = await chat(second, 'restore', 1, { firstTurn: 6 });
    const state = await app.getState(config);
    const ids = (state.values.messages as BaseMessage[]).map((message) => message.id);
    expect(ids).toHaveLength(14);
    expect(new Set(ids).size).toBe(14);
    expect(state.values.turns).toBe(7);
    await second.close();
  });

  it('grows stored bytes linearly with the turns of a conversation', async () => {
    const saver = open('linear');
    await chat(saver, 'linear-a', 10);
    const after10 = await saver.sizeBytes();
    await chat(saver, 'linear-b', 30);
    const after40 = await saver.sizeBytes();
    // 30 more turns should cost about 3× what 10 cost; a quadratic store would cost ~15×.
    expect((after40 - after10) / after10).toBeLessThan(4.5);
    await saver.close();
  });

  it('prunes old checkpoints, keeps the state, and keeps the thread usable', async () => {
    const saver = open('prune');
    const { app, config } = await chat(saver, 'prune', 12, { snapshotFrequency: 4 });
    const before = await app.getState(config);
    const countBefore = await count(saver, 'prune');
    const result = await saver.prune({ keepLast: 3 });
    expect(result.deletedCheckpoints).toBeGreaterThan(0);
    expect(await count(saver, 'prune')).toBe(countBefore - result.deletedCheckpoints);
    const after = await app.getState(config);
    expect(after.values).toEqual(before.values);
    // Every kept checkpoint and its pending writes still decode (re-encoded ones included).
    for await (const tuple of saver.list({ configurable: { thread_id: 'prune' } })) {
      expect(Array.isArray(tuple.pendingWrites)).toBe(true);
    }
    await app.invoke({ messages: [new HumanMessage({ content: 'again', id: 'human-again' })] }, config);
    const continued = await app.getState(config);
    expect((continued.values.messages as BaseMessage[]).length).toBe(26);
    await saver.close();
  });

  it('refuses a keepLast below one', async () => {
    const saver = open('refuse');
    await expect(saver.prune({ keepLast: 0 })).rejects.toMatchObject({ code: 'invalid-argument' });
    await saver.close();
  });
});

describe('PostgresSaver', () => {
  it('serves several server processes on one database: each sees the threads the others wrote', async () => {
    // Two pools stand in for two server processes.
    const other = new pg.Pool({ connectionString: url, max: 2 });
    const first = new PostgresSaver({ pool, schema, prefix: 'shared_' });
    const second = new PostgresSaver({ pool: other, schema, prefix: 'shared_' });
    await Promise.all([chat(first, 'from-first', 3), chat(second, 'from-second', 3)]);
    const fromFirst = await chat(second, 'from-first', 1, { firstTurn: 3 });
    const state = await fromFirst.app.getState(fromFirst.config);
    expect((state.values.messages as BaseMessage[]).map((message) => message.id)).toHaveLength(8);
    expect(await count(first, 'from-second')).toBe(await count(second, 'from-second'));
    await other.end();
  });
});

describe('SqliteSaver', () => {
  it('gives space back to the file after prune and vacuum', async () => {
    const path = join(directory, 'vacuum.db');
    const saver = new SqliteSaver({ path, durability: 'normal' });
    await chat(saver, 'vacuum', 30, { snapshotFrequency: 5 });
    await saver.vacuum();
    const before = statSync(path).size;
    await saver.prune({ keepLast: 2 });
    await saver.vacuum();
    expect(statSync(path).size).toBeLessThan(before);
    await saver.close();
  });
});

async function count(saver: SqlCheckpointSaver, threadId: string): Promise<number> {
  let total = 0;
  for await (const _ of saver.list({ configurable: { thread_id: threadId } })) total += 1;
  return total;
}
