import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BaseMessage } from '@langchain/core/messages';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { BlackboardState } from '../../src/state/index.ts';
import { openChat } from './chat-graph.ts';

const RUNS = 50;
const SEED = 20_261_122;
const directory = mkdtempSync(join(tmpdir(), 'ctxloom-crash-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** Starts the child, waits until it is ready, lets it run `runMs`, kills it with SIGKILL. */
function runAndKill(path: string, from: number, runMs: number): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        '--conditions=ctxloom-source',
        '--no-warnings',
        new URL('./chat-child.ts', import.meta.url).pathname,
        path,
        String(from),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const acked: number[] = [];
    let buffered = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        if (line === 'ready') setTimeout(() => child.kill('SIGKILL'), runMs);
        else if (line.startsWith('ack ')) acked.push(Number(line.slice(4)));
      }
    });
    child.on('exit', (code, signal) => {
      if (signal === 'SIGKILL') resolve(acked);
      else reject(new Error(`child exited with ${code}: ${stderr}`));
    });
  });
}

/** One lane: a database killed and resumed `runs` times; checks the invariants after each kill. */
async function lane(path: string, delays: readonly number[]): Promise<number> {
  let acknowledged = 0;
  for (const [run, delay] of delays.entries()) {
    const acked = await runAndKill(path, acknowledged, delay);
    if (acked.length > 0) {
      expect(acked[0]).toBe(acknowledged);
      acknowledged = (acked.at(-1) ?? 0) + 1;
    }
    const { saver, graph, config } = openChat(path);
    const state = (await graph.getState(config)).values as Partial<BlackboardState>;
    const ids = ((state.messages ?? []) as BaseMessage[]).map((message) => message.id as string);
    const ledger = state.processed_inputs ?? [];
    // Valid and duplicate-free.
    expect(new Set(ids).size, `run ${run}: duplicate message ids`).toBe(ids.length);
    expect(new Set(ledger).size).toBe(ledger.length);
    // Nothing acknowledged is lost: each acked input has its message and its reply.
    for (let turn = 0; turn < acknowledged; turn += 1) {
      expect(ids, `run ${run}: lost turn ${turn}`).toContain(`human:s:in-${turn}`);
      expect(ids).toContain(`ai:human:s:in-${turn}`);
    }
    // Replies only follow their own input; inputs arrive in order.
    for (const [index, id] of ids.entries()) {
      if (id.startsWith('ai:')) expect(ids[index - 1]).toBe(id.slice(3));
      else expect(id).toBe(`human:s:in-${ids.filter((other) => !other.startsWith('ai:')).indexOf(id)}`);
    }
    await saver.close();
  }
  return acknowledged;
}

describe('SqliteSaver under SIGKILL', () => {
  it(`keeps every acknowledged turn exactly once across ${RUNS} seeded kills`, async () => {
    // Kill moments: 0-250 ms after the child is ready (mid-step, mid-commit, between turns).
    const delays = fc.sample(fc.integer({ min: 0, max: 250 }), { numRuns: RUNS, seed: SEED });
    // Two independent lanes in parallel (two cores), half of the kills each.
    const half = Math.ceil(RUNS / 2);
    const turns = await Promise.all([
      lane(join(directory, 'lane-a.db'), delays.slice(0, half)),
      lane(join(directory, 'lane-b.db'), delays.slice(half)),
    ]);
    // The kills hit a chat that was making progress, not one stuck at start-up.
    for (const acknowledged of turns) expect(acknowledged).toBeGreaterThan(5);
  }, 600_000);
});
