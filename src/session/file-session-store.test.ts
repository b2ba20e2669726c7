import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type CompileReport, CtxloomError } from '../core/index.ts';
import { describeSessionStoreConformance } from '../testing/index.ts';
import { openWorkspace } from '../workspace/index.ts';
import { formatLockOwner, lockNameFor } from '../workspace/sandbox/file-lock.ts';
import { TURN_LOCK_NAME } from '../workspace/session/reserved-files.ts';
import { createFileSessionStore } from './file-session-store.ts';
import type { CallRecord } from './session-store.ts';

let counter = 0;
const root = await mkdtemp(join(tmpdir(), 'ctxloom-file-store-'));
const workspace = openWorkspace({ root });

async function newSession(): Promise<string> {
  counter += 1;
  const id = `session-${counter}`;
  await workspace.sandbox.writeText(`${id}/context-config.json`, '{}\n');
  return id;
}

describeSessionStoreConformance('files', () => createFileSessionStore({ workspace }), { newSession });

const call = (id: string): CallRecord => ({
  id,
  turnId: 'u1',
  step: 0,
  at: '2026-01-01T00:00:00.000Z',
  model: 'offline',
  report: { totalTokens: 42 } as unknown as CompileReport,
  messageFingerprints: [`user:${id}`],
});

/** The files of a session's call log, name → text. */
async function callFiles(sessionId: string): Promise<Record<string, string>> {
  const folder = join(root, sessionId, 'calls');
  const names = (await readdir(folder)).sort();
  return Object.fromEntries(
    await Promise.all(names.map(async (name) => [name, await readFile(join(folder, name), 'utf8')])),
  );
}

describe('file session store: a corrupt call log head', () => {
  const bad: [string, string][] = [
    ['null', 'null\n'],
    ['a path for next', '{"next":"../../x"}\n'],
    ['a negative next', '{"next":-5}\n'],
    ['no next', '{"a":1}\n'],
    ['a fraction', '{"next":1.5}\n'],
    ['an infinite next (1e999)', '{"next":1e999}\n'],
    ['a next past the safe integers', `{"next":${Number.MAX_SAFE_INTEGER}}\n`],
    ['an array', '[1]\n'],
  ];
  it.each(bad)(
    '%s: every read and write is a typed invalid-config naming the file and "next"; nothing is written',
    async (_name, head) => {
      const store = createFileSessionStore({ workspace });
      const id = await newSession();
      await store.appendCall(id, call('c0'));
      await writeFile(join(root, id, 'calls', 'head.json'), head);
      const before = await callFiles(id);
      const expected = { code: 'invalid-config', file: 'calls/head.json', path: 'next' };
      await expect(store.appendCall(id, call('c1'))).rejects.toMatchObject(expected);
      await expect(store.listCalls(id)).rejects.toMatchObject(expected);
      // A turn loads first: it fails before it stores its user message.
      await expect(store.load(id)).rejects.toMatchObject(expected);
      const error = (await store.listCalls(id).catch((caught: unknown) => caught)) as Error;
      expect(error.message).toMatch(
        /"next" must be an integer from 0 to \d+, found .+ \(calls\/head\.json at next\)$/u,
      );
      expect(error.message).not.toContain(root);
      expect(await callFiles(id)).toEqual(before);
    },
  );

  it('accepts the largest next it can hand out, and names a huge value shortened', async () => {
    const store = createFileSessionStore({ workspace });
    const id = await newSession();
    await mkdir(join(root, id, 'calls'));
    await writeFile(join(root, id, 'calls', 'head.json'), `{"next":${Number.MAX_SAFE_INTEGER - 1}}\n`);
    await store.appendCall(id, call('last'));
    expect(JSON.parse(await readFile(join(root, id, 'calls', 'head.json'), 'utf8'))).toEqual({
      next: Number.MAX_SAFE_INTEGER,
    });
    await writeFile(join(root, id, 'calls', 'head.json'), JSON.stringify({ next: 'x'.repeat(100_000) }));
    const error = (await store.listCalls(id).catch((caught: unknown) => caught)) as Error;
    expect(error).toMatchObject({ code: 'invalid-config' });
    expect(error.message.length).toBeLessThan(300);
  });

  it('names a value by its type, and a deeply nested one is a typed error, not a RangeError', async () => {
    const store = createFileSessionStore({ workspace });
    const id = await newSession();
    await mkdir(join(root, id, 'calls'));
    const listError = async (head: string) => {
      await writeFile(join(root, id, 'calls', 'head.json'), head);
      return (await store.listCalls(id).catch((caught: unknown) => caught)) as CtxloomError;
    };
    for (const [head, found] of [
      ['{"next":[1]}', 'found an array'],
      ['[1]', 'found an array'],
      ['{"next":{"a":1}}', 'found an object'],
      ['{"next":"12"}', 'found "12"'],
      ['{"next":true}', 'found true'],
      ['{"next":null}', 'found null'],
    ]) {
      const error = await listError(head as string);
      expect(error).toMatchObject({ code: 'invalid-config', file: 'calls/head.json', path: 'next' });
      expect(error.message).toContain(`${found} (calls/head.json at next)`);
    }
    const nested = `${'['.repeat(500_000)}${']'.repeat(500_000)}`;
    for (const head of [`{"next":${nested}}`, nested, `{"next":{"a":${nested}}}`]) {
      const error = await listError(head);
      // Refused as a bad head, or earlier by a nesting limit of the JSON reader: typed either way.
      expect(CtxloomError.is(error), String(error)).toBe(true);
      expect(error.file).toBe('calls/head.json');
    }
  });

  it('a call record of the wrong shape is a typed invalid-config naming its file, not a TypeError', async () => {
    const store = createFileSessionStore({ workspace });
    const id = await newSession();
    await store.appendCall(id, call('c0'));
    await store.appendCall(id, call('c1'));
    await writeFile(join(root, id, 'calls', '000001.json'), 'null\n');
    await expect(store.listCalls(id)).rejects.toMatchObject({
      code: 'invalid-config',
      file: 'calls/000001.json',
      path: 'sequence',
    });
    await writeFile(join(root, id, 'calls', '000001.json'), '{"sequence":1,"call":"x"}\n');
    await expect(store.listCalls(id)).rejects.toMatchObject({ file: 'calls/000001.json', path: 'call' });
  });
});

describe('file session store: a memory.json of the wrong shape', () => {
  it('an append to it is a typed invalid-config naming the file and line, as a load is; nothing is written', async () => {
    const store = createFileSessionStore({ workspace });
    const id = await newSession();
    await store.appendMessages(id, [{ id: 'u1', role: 'user', content: 'hi' }]);
    const bad = '{\n  "version": 1,\n  "events": [{ "bogus": true }]\n}\n';
    await writeFile(join(root, id, 'memory.json'), bad);
    const event = {
      id: 'e1',
      type: 'exclude' as const,
      targetMessageId: 'u1',
      by: 'user' as const,
      at: '2026-01-01T00:00:00.000Z',
    };
    const expected = { code: 'invalid-config', file: 'memory.json', line: 3 };
    await expect(store.load(id)).rejects.toMatchObject(expected);
    await expect(store.appendCuration(id, [event])).rejects.toMatchObject(expected);
    expect(await readFile(join(root, id, 'memory.json'), 'utf8')).toBe(bad);
  });
});

describe('file session store: a compression of the wrong shape', () => {
  it('is refused before it is written (invalid-argument), so the session still loads', async () => {
    const store = createFileSessionStore({ workspace });
    const id = await newSession();
    await store.appendMessages(id, [{ id: 'u1', role: 'user', content: 'hi' }]);
    const bad = {
      summary: { text: 'a summary', fromMessageId: 'u1' },
      structured: null,
      processedThrough: { requirements: null, artifacts: null },
    } as unknown as Parameters<typeof store.saveCompression>[1];
    await expect(store.saveCompression(id, bad, { expectedRevision: 0 })).rejects.toMatchObject({
      code: 'invalid-argument',
      file: 'compression.json',
    });
    expect((await store.load(id)).compression.revision).toBe(0);
  });
});

describe('file session store: a turn of the session in another process', () => {
  it('waits for it, then says so (conflict, thread-busy, its pid) without running the turn; its own conflicts pass through', async () => {
    // Another process holding the session's turn: a live process, named by the lock file a
    // ctxloom turn writes.
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    await once(other, 'spawn');
    try {
      const busy = openWorkspace({ root, limits: { lockTimeoutMs: 300 } });
      const store = createFileSessionStore({ workspace: busy });
      const id = await newSession();
      const pid = other.pid as number;
      await writeFile(join(root, id, lockNameFor(TURN_LOCK_NAME)), formatLockOwner(pid));
      let ran = false;
      const turn = store.holdTurn?.(id, async () => {
        ran = true;
      });
      await expect(turn).rejects.toMatchObject({
        code: 'conflict',
        path: 'sessionId',
        details: { reason: 'thread-busy', pid },
      });
      await expect(turn).rejects.toThrow(
        `session "${id}" has a turn running in another process (pid ${pid})`,
      );
      expect(ran).toBe(false);
      // Once that process is gone, its lock is taken over and the turn runs; a conflict the
      // turn itself throws is its own.
      other.kill();
      await once(other, 'exit');
      const own = new CtxloomError({ code: 'conflict', message: 'message id u1 is already stored' });
      await expect(
        store.holdTurn?.(id, async () => {
          throw own;
        }),
      ).rejects.toBe(own);
    } finally {
      other.kill();
    }
  });
});
