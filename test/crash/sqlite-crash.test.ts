import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BaseMessage } from '@langchain/core/messages';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { BlackboardState } from '../../src/state/index.ts';
import { openChat } from './chat-graph.ts';
import { runAndKill } from './run-and-kill.ts';

/**
 * The suite is sized by time, not by a count: each lane keeps killing and resuming its
 * database until this budget is spent (at least {@link MIN_RUNS} kills per lane), so a busy
 * machine runs fewer kills instead of hitting the timeout. `CTXLOOM_CRASH_BUDGET_MS` overrides;
 * `CTXLOOM_CRASH_KILLS` (as in `session-crash.test.ts`) runs that many kills instead, half per lane.
 */
const KILLS =
  process.env.CTXLOOM_CRASH_KILLS === undefined ? undefined : Number(process.env.CTXLOOM_CRASH_KILLS);
const BUDGET_MS = KILLS === undefined ? Number(process.env.CTXLOOM_CRASH_BUDGET_MS ?? 40_000) : Infinity;
const MIN_RUNS = KILLS === undefined ? 3 : Math.ceil(KILLS / 2);
/** Upper bound on kills per lane; the seeded kill moments are drawn for this many. */
const MAX_RUNS = Math.max(1_000, MIN_RUNS);
const SEED = 20_261_122;
const directory = mkdtempSync(join(tmpdir(), 'ctxloom-crash-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/**
 * One lane: a database killed and resumed with the next delay until `deadline` (and at least
 * {@link MIN_RUNS} times); checks the invariants after each kill. Returns turns acknowledged
 * and kills made.
 */
async function lane(
  path: string,
  delays: readonly number[],
  deadline: number,
): Promise<{ acknowledged: number; runs: number; questions: number; answers: number }> {
  let acknowledged = 0;
  let runs = 0;
  let questions = 0;
  let answers = 0;
  for (const [run, delay] of delays.entries()) {
    if (run >= MIN_RUNS && (KILLS !== undefined || performance.now() >= deadline)) break;
    runs += 1;
    // Even runs die anywhere from start-up on; odd runs only after a turn of their own.
    const acked = (
      await runAndKill({
        script: new URL('./chat-child.ts', import.meta.url),
        args: [path, String(acknowledged)],
        runMs: delay,
        after: run % 2 === 0 ? 'ready' : 'ack',
      })
    ).map(Number);
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
    questions = Array.from({ length: acknowledged }, (_, turn) => `human:s:in-${turn}`).filter((id) =>
      ids.includes(id),
    ).length;
    answers = Array.from({ length: acknowledged }, (_, turn) => `ai:human:s:in-${turn}`).filter((id) =>
      ids.includes(id),
    ).length;
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
  return { acknowledged, runs, questions, answers };
}

describe('SqliteSaver under SIGKILL', () => {
  it(
    `keeps every acknowledged turn exactly once across seeded kills (${KILLS === undefined ? `${BUDGET_MS / 1000} s` : `${KILLS} kills`})`,
    async () => {
      // Kill moments: 0-250 ms after the child is ready or has acknowledged a turn (mid-step, mid-commit, between turns).
      const delays = fc.sample(fc.integer({ min: 0, max: 250 }), { numRuns: 2 * MAX_RUNS, seed: SEED });
      const deadline = performance.now() + BUDGET_MS;
      const started = performance.now();
      // Two independent lanes in parallel, each with its own seeded kill moments.
      const lanes = await Promise.all([
        lane(join(directory, 'lane-a.db'), delays.slice(0, MAX_RUNS), deadline),
        lane(join(directory, 'lane-b.db'), delays.slice(MAX_RUNS), deadline),
      ]);
      const total = (key: 'runs' | 'acknowledged' | 'questions' | 'answers') =>
        lanes.reduce((sum, one) => sum + one[key], 0);
      process.stdout.write(
        `sqlite crash (runtime graph): ${JSON.stringify({ kills: total('runs'), acknowledged: total('acknowledged'), questions: total('questions'), answers: total('answers'), seconds: Math.round((performance.now() - started) / 1000) })}\n`,
      );
      // The kills hit a chat that was making progress, not one stuck at start-up.
      for (const { acknowledged, runs } of lanes) {
        expect(runs).toBeGreaterThanOrEqual(MIN_RUNS);
        expect(acknowledged).toBeGreaterThan(0);
      }
      // The timeout only guards against a hang: the budget ends the loop, plus one kill in flight per lane.
    },
    KILLS === undefined ? BUDGET_MS + 300_000 : KILLS * 30_000,
  );
});
