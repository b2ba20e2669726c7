import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BaseMessage } from '@langchain/core/messages';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresSaver } from '../../src/runtime/checkpoint/postgres-saver.ts';
import type { SqlCheckpointSaver } from '../../src/runtime/checkpoint/sql-checkpoint-saver.ts';
import { SqliteSaver } from '../../src/runtime/checkpoint/sqlite-saver.ts';
import { type BlackboardState, createBlackboard } from '../../src/state/index.ts';

/**
 * Writers, pruners and a second writer process on the same threads, for a time budget: the
 * full run gives each saver 30 s (60 s in all); with `CI=true` 10 s each;
 * `CTXLOOM_CONCURRENCY_MS` overrides. Checked after: every thread reads back whole (0
 * corrupt threads), the model ran once per input (0 duplicate node runs), and every
 * acknowledged input has exactly one human message and one answer, in order.
 */
const RUN_MS = Number(process.env.CTXLOOM_CONCURRENCY_MS ?? (process.env.CI === 'true' ? 10_000 : 30_000));
const url = process.env.CTXLOOM_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const directory = mkdtempSync(join(tmpdir(), 'ctxloom-writers-'));
const pool = new pg.Pool({ connectionString: url, max: 2 });
const schema = `ctxloom_writers_${process.pid}_${Date.now().toString(36)}`;
afterAll(async () => {
  await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await pool.end();
  rmSync(directory, { recursive: true, force: true });
});

interface ChildOutput {
  lines: string[];
}

function child(args: string[]): Promise<ChildOutput> {
  return new Promise((resolve, reject) => {
    const process_ = spawn(
      process.execPath,
      [
        '--conditions=ctxloom-source',
        '--no-warnings',
        new URL('./thread-child.ts', import.meta.url).pathname,
        ...args,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    process_.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    process_.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    process_.on('exit', (code) => {
      if (code === 0) resolve({ lines: stdout.split('\n').filter((line) => line !== '') });
      else reject(new Error(`${args.join(' ')} exited with ${code}: ${stderr}`));
    });
  });
}

/** Each thread: two writer processes and one pruner; `lone`: one writer and one pruner. */
const THREADS = { shared: ['w1', 'w2'], lone: ['w3'] } as const;

async function hammer(kind: 'sqlite' | 'postgres', target: string, open: () => SqlCheckpointSaver) {
  const ms = String(RUN_MS);
  const runs = await Promise.all(
    Object.entries(THREADS).flatMap(([thread, writers]) => [
      ...writers.map((name) => child(['writer', kind, target, thread, name, ms])),
      child(['pruner', kind, target, thread, `p-${thread}`, ms]),
    ]),
  );
  const lines = runs.flatMap((run) => run.lines);
  const acked = lines.filter((line) => line.startsWith('ack ')).map((line) => line.slice(4));
  const ran = lines.filter((line) => line.startsWith('run ')).map((line) => line.slice(4));
  const pruned = lines
    .filter((line) => line.startsWith('pruned '))
    .reduce((sum, line) => sum + Number(line.slice(7)), 0);
  const busy = lines.filter((line) => line === 'busy').length;
  expect(pruned, 'the pruners deleted nothing').toBeGreaterThan(0);
  // 0 duplicate node runs: the model ran once per input, never twice.
  expect(new Set(ran).size, 'an input was run twice').toBe(ran.length);
  const saver = open();
  const { createSequentialProcess } = await import('../../src/runtime/processes/sequential.ts');
  const { defineAgent } = await import('../../src/runtime/agents/define-agent.ts');
  const { textModel } = await import('../../src/runtime/processes/mock-model.test-support.ts');
  const { createCharCounter } = await import('../../src/testing/index.ts');
  const graph = createSequentialProcess({
    counter: createCharCounter(),
    blackboard: createBlackboard({ snapshotFrequency: 4 }),
    agents: [defineAgent({ id: 'helper', systemPrompt: 'Answer.', model: textModel(() => '') })],
  }).compile({ checkpointer: saver });
  for (const [thread, writers] of Object.entries(THREADS)) {
    const config = { configurable: { thread_id: thread } };
    // 0 corrupt threads: the state and every stored checkpoint read back.
    const state = (await graph.getState(config)).values as BlackboardState;
    for await (const tuple of saver.list(config)) expect(tuple.checkpoint.id).toBeTruthy();
    const texts = (state.messages as BaseMessage[]).map((message) => message.text);
    const mine = acked.filter((input) => writers.some((name) => input.startsWith(`${name}-`)));
    expect(mine.length, `${thread}: no input was acknowledged`).toBeGreaterThan(0);
    for (const input of mine) {
      // Every acknowledged input answered exactly once, right after it.
      const at = texts.indexOf(input);
      expect(at, `${thread}: acknowledged ${input} is missing`).toBeGreaterThanOrEqual(0);
      expect(texts.filter((text) => text === input)).toHaveLength(1);
      expect(texts.filter((text) => text === `answer to ${input}`)).toHaveLength(1);
      expect(texts[at + 1]).toBe(`answer to ${input}`);
    }
    expect(texts.length).toBe(2 * mine.length);
  }
  await saver.close();
  return { acked: acked.length, runs: ran.length, pruned, busy };
}

describe('one writer per thread, across processes', () => {
  it(
    'SQLite: writers, a second writer and a pruner on one thread lose, fork and duplicate nothing',
    async () => {
      const path = join(directory, 'writers.db');
      const outcome = await hammer('sqlite', path, () => new SqliteSaver({ path }));
      console.log(JSON.stringify(outcome));
      expect(outcome.acked).toBeGreaterThan(0);
    },
    RUN_MS * 12 + 60_000,
  );

  it(
    'PostgreSQL: writers, a second writer and a pruner on one thread lose, fork and duplicate nothing',
    async () => {
      await pool.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
      const outcome = await hammer('postgres', schema, () => new PostgresSaver({ pool, schema }));
      console.log(JSON.stringify(outcome));
      expect(outcome.acked).toBeGreaterThan(0);
    },
    RUN_MS * 12 + 60_000,
  );
});
