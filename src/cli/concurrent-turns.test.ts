import { spawn } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openSessionStore } from '../session/index.ts';
import { openWorkspace } from '../workspace/index.ts';

const root = await mkdtemp(join(tmpdir(), 'ctxloom-concurrent-turns-'));
const bin = new URL('./bin.ts', import.meta.url).pathname;
const example = new URL('../../examples/notebook', import.meta.url).pathname;
const url = process.env.CTXLOOM_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `ctxloom_turns_${process.pid}_${Date.now().toString(36)}`;

afterAll(async () => {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.end();
  await rm(root, { recursive: true, force: true });
});

/** One `ctxloom chat` process (offline model); resolves with its exit code and stderr. */
function chat(dir: string, id: string, store: string): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(
    process.execPath,
    [
      '--conditions=ctxloom-source',
      '--no-warnings',
      bin,
      'chat',
      dir,
      `question ${id}`,
      '--id',
      id,
      '--store',
      store,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, CTXLOOM_MODEL: '' } },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stderr })));
}

describe('two ctxloom chat processes on one session at once', () => {
  for (const store of ['files', 'sqlite', 'postgres']) {
    it(`${store}: one turn waits for the other — each question is followed by its own answer`, async () => {
      const workspace = join(root, store);
      await cp(example, workspace, { recursive: true });
      const dir = join(workspace, 'raft-consensus');
      const spec =
        store === 'files'
          ? 'files'
          : store === 'sqlite'
            ? `sqlite:${join(root, `${store}.db`)}`
            : `${url}?schema=${schema}`;
      const ids: string[] = [];
      for (let round = 0; round < 2; round++) {
        const pair = [`a${round}`, `b${round}`];
        ids.push(...pair);
        const results = await Promise.all(pair.map((id) => chat(dir, id, spec)));
        for (const result of results) expect(result.code, result.stderr).toBe(0);
      }
      const opened = await openSessionStore(spec, { workspace: openWorkspace({ root: workspace }) });
      const { messages } = await opened.load('raft-consensus');
      await opened.close();
      const turns = messages.filter((message) => ids.includes(message.id));
      expect(turns).toHaveLength(ids.length);
      for (const question of turns) {
        const next = messages[messages.indexOf(question) + 1];
        expect(next?.role, `the message after ${question.id}`).toBe('assistant');
      }
    });
  }
});
