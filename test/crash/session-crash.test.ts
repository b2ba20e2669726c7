import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import type { Message } from '../../src/core/index.ts';
import { openSessionStore } from '../../src/session/open-session-store.ts';
import { openWorkspace } from '../../src/workspace/index.ts';
import { runAndKill } from './run-and-kill.ts';

/**
 * Kills per store: `CTXLOOM_CRASH_KILLS` (issue 27 asks for ≥ 200 per store when measuring);
 * CI's default is modest, each kill costs a child's start-up (~1–3 s on a loaded machine).
 */
const KILLS = Math.max(2, Number(process.env.CTXLOOM_CRASH_KILLS ?? 8));
const SEED = 20_270_027;
const EXAMPLE = new URL('../../examples/notebook', import.meta.url).pathname;
const SESSION = 'raft-consensus';
const directory = mkdtempSync(join(tmpdir(), 'ctxloom-session-crash-'));
const url = inject('pgUrl');
const schema = `ctxloom_crash_${process.pid}_${Date.now().toString(36)}`;

afterAll(async () => {
  rmSync(directory, { recursive: true, force: true });
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.end();
});

/** What a store kept of the acknowledged turns after every kill. */
interface Tally {
  kills: number;
  acknowledged: number;
  questions: number;
  answers: number;
  lostQuestions: string[];
  lostAnswers: string[];
}

/**
 * Kills a chat on `spec` {@link KILLS} times at seeded moments, reopening the store after each
 * kill: every acknowledged question must be stored once, with its answer right after it.
 */
async function crashStore(name: string, specOf: (root: string) => string): Promise<Tally> {
  const root = join(directory, name);
  cpSync(EXAMPLE, root, { recursive: true });
  const spec = specOf(root);
  // A third of the kills 0-250 ms after the child is ready (mid-start-up, mid-first-turn), a
  // third 0-250 ms after its first acknowledged turn; on a SQL store the last third is the child's
  // own SIGKILL right after its k-th putWrites commits (k = 1-9: the three writes of three
  // turns), before the checkpoint that follows — elsewhere another kill after an ack.
  const delays = fc.sample(fc.integer({ min: 0, max: 250 }), { numRuns: KILLS, seed: SEED });
  const writes = fc.sample(fc.integer({ min: 1, max: 9 }), { numRuns: KILLS, seed: SEED + 1 });
  const acknowledged: string[] = [];
  const tally: Tally = {
    kills: 0,
    acknowledged: 0,
    questions: 0,
    answers: 0,
    lostQuestions: [],
    lostAnswers: [],
  };
  for (const [run, delay] of delays.entries()) {
    const selfKill = run % 3 === 2 && name !== 'files' ? (writes[run] ?? 1) : 0;
    acknowledged.push(
      ...(await runAndKill({
        script: new URL('./session-child.ts', import.meta.url),
        args: [root, spec, `r${run}`, String(selfKill)],
        // A child that kills itself is killed anyway if it has not by then.
        runMs: selfKill > 0 ? 10_000 : delay,
        after: run % 3 === 0 ? 'ready' : 'ack',
      })),
    );
    tally.kills += 1;
    const store = await openSessionStore(spec, { workspace: openWorkspace({ root }) });
    let messages: Message[];
    try {
      messages = (await store.load(SESSION)).messages;
    } finally {
      await store.close();
    }
    const ids = messages.map((message) => message.id);
    expect(new Set(ids).size, `${name}, kill ${run}: duplicate message ids`).toBe(ids.length);
    tally.lostQuestions = acknowledged.filter((id) => !ids.includes(id));
    tally.lostAnswers = acknowledged.filter((id) => {
      const at = ids.indexOf(id);
      return at >= 0 && messages[at + 1]?.role !== 'assistant';
    });
    tally.acknowledged = acknowledged.length;
    tally.questions = acknowledged.length - tally.lostQuestions.length;
    tally.answers = acknowledged.length - tally.lostQuestions.length - tally.lostAnswers.length;
  }
  process.stdout.write(`session crash ${name}: ${JSON.stringify(tally)}\n`);
  return tally;
}

describe('the session engine under SIGKILL', () => {
  const stores: [string, (root: string) => string][] = [
    ['files', () => 'files'],
    ['sqlite', (root) => `sqlite:${join(root, 'sessions.db')}`],
    ['postgres', () => `${url}${url.includes('?') ? '&' : '?'}schema=${schema}`],
  ];
  for (const [name, specOf] of stores) {
    it(
      `keeps every acknowledged question and its answer on the ${name} store across ${KILLS} seeded kills`,
      async () => {
        const tally = await crashStore(name, specOf);
        expect(tally.lostQuestions).toEqual([]);
        expect(tally.lostAnswers).toEqual([]);
        // The kills hit a chat that was making progress.
        expect(tally.acknowledged).toBeGreaterThan(0);
      },
      KILLS * 30_000,
    );
  }
});
