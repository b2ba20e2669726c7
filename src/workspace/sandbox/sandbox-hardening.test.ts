import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CtxloomError } from 'ctxloom';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from './create-sandbox.ts';
import { HAS_MKFIFO, makeFifo, releaseFifoReaders } from './fifo.test-support.ts';
import { formatLockOwner, isProcessAlive, lockNameFor, parseLockOwner, processStartOf } from './file-lock.ts';

let base: string;
let session: string;
let outside: string;
let box: Sandbox;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'ctxloom-hardening-'));
  session = join(base, 'workspace', 's1');
  outside = join(base, 'outside');
  await mkdir(join(session, 'notes'), { recursive: true });
  await mkdir(outside);
  await writeFile(join(session, 'guidance.md'), '# 指南\n');
  box = createSandbox({ root: session });
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

/** Every file below `folder`, recursively (symlinks not followed). */
async function filesBelow(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

/** A child process that lives until killed; its pid is a live foreign pid. */
async function startIdleProcess(): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  await once(child, 'spawn');
  return child;
}

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await once(child, 'exit');
  expect(isProcessAlive(child.pid as number)).toBe(false);
  return child.pid as number;
}

describe('sandbox file-system errors are typed and name no server path', () => {
  const cases: [string, (box: Sandbox) => Promise<unknown>, string][] = [
    ['a symlink loop (ELOOP)', (sandbox) => sandbox.readText('loop/x.md'), 'path-escape'],
    ['a symlink loop for a write (ELOOP)', (sandbox) => sandbox.writeText('loop/x.md', 'x'), 'path-escape'],
    ['writing over a folder (EISDIR)', (sandbox) => sandbox.writeText('notes', 'x'), 'invalid-argument'],
    ['updating a folder (EISDIR)', (sandbox) => sandbox.update('notes', () => 'x'), 'invalid-argument'],
    [
      'a file used as a folder (ENOTDIR)',
      (sandbox) => sandbox.writeText('guidance.md/x.md', 'x'),
      'invalid-argument',
    ],
    ['reading below a file (ENOTDIR)', (sandbox) => sandbox.readText('guidance.md/x.md'), 'not-found'],
    ['listing a missing folder (ENOENT)', (sandbox) => sandbox.list('gone'), 'not-found'],
  ];
  it.each(cases)('%s', async (_name, run, code) => {
    await symlink('loop', join(session, 'loop'));
    const error = await run(box).catch((caught: unknown) => caught);
    expect(CtxloomError.is(error)).toBe(true);
    expect((error as CtxloomError).code).toBe(code);
    const shown = JSON.stringify((error as CtxloomError).toJSON()) + (error as Error).message;
    expect(shown).not.toContain(base);
  });
});

// A named pipe without a writer blocks a plain open forever (and a thread of libuv's pool with
// it): these tests pass only if every call settles at all; vitest's timeout is the only clock.
describe.skipIf(!HAS_MKFIFO)('named pipes and other special files are refused, without waiting', () => {
  let fifo: string;
  beforeEach(() => {
    fifo = join(session, 'fifo.md');
    makeFifo(fifo);
  });
  afterEach(() => releaseFifoReaders(fifo));

  it('a read of a named pipe is a typed invalid-argument naming the path', async () => {
    const error = await box.readText('fifo.md').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CtxloomError);
    expect(error).toMatchObject({ code: 'invalid-argument', file: 'fifo.md' });
    expect((error as Error).message).toMatch(/named pipe.*not a regular file \(fifo\.md\)/u);
    expect((error as Error).message).not.toContain(base);
  });

  it('more reads than the thread pool has threads all settle, and later reads still run', async () => {
    const reads = Array.from({ length: 16 }, () => box.readText('fifo.md'));
    const settled = await Promise.allSettled(reads);
    expect(settled.map((result) => result.status)).toEqual(Array(16).fill('rejected'));
    expect(await box.readText('guidance.md')).toBe('# 指南\n');
  });

  it('an update of a named pipe is refused and leaves it a pipe', async () => {
    await expect(box.update('fifo.md', () => 'x')).rejects.toMatchObject({
      code: 'invalid-argument',
      file: 'fifo.md',
    });
    expect((await lstat(fifo)).isFIFO()).toBe(true);
  });

  it('a named pipe in a write lock’s place names no owner: broken after the wait, not waited on', async () => {
    const lock = join(session, lockNameFor('guidance.md'));
    makeFifo(lock);
    try {
      const impatient = createSandbox({ root: session, lockTimeoutMs: 30, cleanStaleFiles: false });
      expect(await impatient.update('guidance.md', () => 'new\n')).toBe('new\n');
      expect(await readFile(join(session, 'guidance.md'), 'utf8')).toBe('new\n');
    } finally {
      releaseFifoReaders(lock);
    }
  });
});

describe('writes go through the checked parent folder (TOCTOU)', () => {
  it('refuses a parent that is a symlink by the time it is opened, and writes nothing there', async () => {
    await symlink(outside, join(session, 'out'));
    await expect(box.writeText('out/x.md', 'x')).rejects.toMatchObject({ code: 'path-escape' });
    expect(await filesBelow(outside)).toEqual([]);
  });
});

describe('cross-process write lock', () => {
  it('waits for a live foreign owner, then refuses with conflict naming its pid', async () => {
    const owner = await startIdleProcess();
    try {
      await writeFile(join(session, lockNameFor('messages.json')), formatLockOwner(owner.pid as number));
      const impatient = createSandbox({ root: session, lockTimeoutMs: 30, cleanStaleFiles: false });
      await expect(impatient.update('messages.json', () => '[]')).rejects.toMatchObject({
        code: 'conflict',
        file: 'messages.json',
        details: { pid: owner.pid },
      });
      expect(await readdir(session)).not.toContain('messages.json');
    } finally {
      owner.kill('SIGKILL');
      await once(owner, 'exit');
    }
    // Its owner is dead now (as after kill -9): the lock is taken over.
    const next = createSandbox({ root: session, lockTimeoutMs: 30, cleanStaleFiles: false });
    expect(await next.update('messages.json', () => '[1]')).toBe('[1]');
    expect((await readdir(session)).filter((name) => name.endsWith('.ctxloom-lock'))).toEqual([]);
  });

  it('breaks a lock that names a live pid it cannot prove is a ctxloom process, after the wait', async () => {
    // What an agent could write before reserved names: pid 1 (always alive), no host or start.
    await writeFile(join(session, lockNameFor('messages.json')), '1\n');
    const impatient = createSandbox({ root: session, lockTimeoutMs: 30, cleanStaleFiles: false });
    expect(await impatient.update('messages.json', () => '[1]')).toBe('[1]');
    expect((await readdir(session)).filter((name) => name.endsWith('.ctxloom-lock'))).toEqual([]);
  });

  // Needs /proc (Linux) to tell one process with a pid from another.
  it.skipIf(processStartOf(1) === undefined)(
    'takes over at once a lock whose pid runs but is another process (a reused pid)',
    async () => {
      const [pid, host] = formatLockOwner(1).split(' ');
      await writeFile(join(session, lockNameFor('messages.json')), `${pid} ${host} 1\n`);
      // A long wait would fail the test's own timeout: the owner is judged, not waited for.
      const patient = createSandbox({ root: session, lockTimeoutMs: 60_000, cleanStaleFiles: false });
      expect(await patient.update('messages.json', () => '[2]')).toBe('[2]');
    },
  );

  it('waits for a lock of another host, then refuses with conflict naming it', async () => {
    await writeFile(join(session, lockNameFor('messages.json')), '4242 build-box-7 12345\n');
    const impatient = createSandbox({ root: session, lockTimeoutMs: 30, cleanStaleFiles: false });
    await expect(impatient.update('messages.json', () => '[]')).rejects.toMatchObject({
      code: 'conflict',
      details: { pid: 4242, host: 'build-box-7' },
    });
  });

  it('records pid, host and start time in the lock, and reads older bare-pid locks', () => {
    const own = parseLockOwner(formatLockOwner());
    expect(own.pid).toBe(process.pid);
    expect(own.host).toBeTypeOf('string');
    expect(parseLockOwner('123\n')).toEqual({ pid: 123 });
    expect(parseLockOwner('')).toEqual({});
    expect(parseLockOwner('x y z')).toEqual({});
  });

  it('two processes appending to one session lose no message', async () => {
    await writeFile(join(session, 'messages.json'), '[]\n');
    const store = fileURLToPath(new URL('../session/session-store.ts', import.meta.url));
    const sandboxModule = fileURLToPath(new URL('./create-sandbox.ts', import.meta.url));
    const writer = (name: string) =>
      spawn(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `const { appendMessages } = await import(${JSON.stringify(store)});
           const { createSandbox } = await import(${JSON.stringify(sandboxModule)});
           const box = createSandbox({ root: ${JSON.stringify(session)} });
           process.stdout.write('ready\\n');
           await new Promise((go) => process.stdin.once('data', go));
           for (let i = 0; i < 60; i++) {
             await appendMessages(box, [{ id: '${name}-' + i, role: 'user', content: 'm' + i }]);
           }
           process.stdin.destroy();`,
        ],
        { stdio: ['pipe', 'pipe', 'pipe'] },
      );
    const children = [writer('a'), writer('b')];
    // Both start appending at once, after their modules are loaded.
    await Promise.all(children.map((child) => once(child.stdout as NodeJS.ReadableStream, 'data')));
    const stderr = children.map((child) => {
      let text = '';
      child.stderr?.on('data', (chunk: Buffer) => {
        text += chunk.toString();
      });
      return () => text;
    });
    for (const child of children) child.stdin?.write('go\n');
    const codes = await Promise.all(children.map(async (child) => (await once(child, 'exit'))[0]));
    expect(stderr.map((read) => read())).toEqual(['', '']);
    expect(codes).toEqual([0, 0]);
    const stored = JSON.parse(await readFile(join(session, 'messages.json'), 'utf8')) as { id: string }[];
    expect(stored).toHaveLength(120);
    expect(new Set(stored.map((message) => message.id)).size).toBe(120);
  }, 60_000);
});

describe('stale files of killed processes', () => {
  it('are removed when the sandbox is opened; files of live processes stay', async () => {
    const dead = await deadPid();
    const live = await startIdleProcess();
    try {
      const stale = [
        join(session, `.${dead}-a1b2c3.ctxloom-tmp`),
        join(session, 'notes', '.0a1b2c3d4e5f.ctxloom-tmp'), // before pids were recorded
        join(session, 'notes', lockNameFor('a.md')),
      ];
      const kept = [
        join(session, `.${live.pid}-a1b2c3.ctxloom-tmp`),
        join(session, lockNameFor('guidance.md')),
      ];
      for (const file of stale) await writeFile(file, `${dead}\n`);
      for (const file of kept) await writeFile(file, `${live.pid}\n`);
      const opened = createSandbox({ root: session });
      expect(await opened.readText('guidance.md')).toBe('# 指南\n');
      const left = await filesBelow(session);
      for (const file of stale) expect(left).not.toContain(file);
      for (const file of kept) expect(left).toContain(file);
      expect((await opened.list('', { recursive: true })).map((entry) => entry.path)).not.toContain(
        `.${live.pid}-a1b2c3.ctxloom-tmp`,
      );
    } finally {
      live.kill('SIGKILL');
      await once(live, 'exit');
    }
  });
});
