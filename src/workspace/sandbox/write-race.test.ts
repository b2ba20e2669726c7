import { mkdirSync, readdirSync, renameSync, symlinkSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CtxloomError } from 'ctxloom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

/**
 * Every `node:fs/promises` call the sandbox makes is counted; after call number `swapAt.call`
 * returns, `swapAt.swap` runs — a local process replacing a folder by a symlink at exactly
 * that point. Trying every point of a write is a deterministic version of the race.
 */
const swapAt: { call: number; count: number; swap: () => void } = { call: -1, count: 0, swap: () => {} };
/** `rename`, `open` and `FileHandle.sync` calls, in order: `sync <path opened>`. */
const events: string[] = [];

vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  const wrapped: Record<string, unknown> = { ...actual };
  for (const [name, value] of Object.entries(actual)) {
    if (typeof value !== 'function' || name === 'constants') continue;
    wrapped[name] = async (...args: unknown[]) => {
      try {
        const result = await (value as (...a: unknown[]) => Promise<unknown>)(...args);
        if (name === 'rename') events.push(`rename ${String(args[1])}`);
        if (name === 'open') {
          const handle = result as { sync: () => Promise<void> };
          const sync = handle.sync.bind(handle);
          handle.sync = async () => {
            await sync();
            events.push(`sync ${String(args[0])}`);
          };
        }
        return result;
      } finally {
        if (swapAt.count++ === swapAt.call) swapAt.swap();
      }
    };
  }
  return { ...wrapped, default: wrapped };
});

const { createSandbox } = await import('./create-sandbox.ts');

let base: string;
let session: string;
let outside: string;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'ctxloom-race-'));
  session = join(base, 's1');
  outside = join(base, 'outside');
  await mkdir(join(session, 'd'), { recursive: true });
  await mkdir(outside);
});
afterEach(async () => {
  swapAt.call = -1;
  await rm(base, { recursive: true, force: true });
});

const swapParentForSymlink = () => {
  renameSync(join(session, 'd'), join(session, 'd-moved'));
  symlinkSync(outside, join(session, 'd'));
};
const swapGrandparent = () => {
  renameSync(join(session, 'd'), join(session, 'd-moved'));
  mkdirSync(join(outside, 'e'), { recursive: true });
  symlinkSync(outside, join(session, 'd'));
};

describe('durable writes', () => {
  it('fsync the temp file before the rename and the folder after it', async () => {
    const box = createSandbox({ root: session, cleanStaleFiles: false });
    events.length = 0;
    await box.writeText('d/file.md', 'durable');
    const renamed = events.findIndex((event) => event.startsWith('rename'));
    expect(renamed).toBeGreaterThan(0);
    expect(events[renamed - 1]).toMatch(/^sync .*\.ctxloom-tmp$/u);
    // The folder is the handle the temp file and the rename went through.
    expect(
      events.slice(renamed + 1).some((event) => event.startsWith('sync') && !event.includes('.ctxloom')),
    ).toBe(true);
    events.length = 0;
    await box.update('d/file.md', (current) => `${current} again`);
    expect(events.filter((event) => event.startsWith('sync')).length).toBeGreaterThanOrEqual(2);
    expect(await readFile(join(session, 'd', 'file.md'), 'utf8')).toBe('durable again');
  });
});

describe('a symlink swapped in at any point of a write', () => {
  const writes: [string, string, () => void][] = [
    ['writeText into an existing folder', 'd/file.md', swapParentForSymlink],
    ['writeText into a folder it creates', 'd/e/file.md', swapGrandparent],
    ['update of an existing folder', 'd/file.md', swapParentForSymlink],
  ];
  it.each(writes)('%s never lands a file or temp file outside the session', async (name, path, swap) => {
    let steps = 0;
    {
      const box = createSandbox({ root: session, cleanStaleFiles: false });
      swapAt.call = -1;
      swapAt.count = 0;
      await box.writeText(path, 'probe');
      steps = swapAt.count;
      await rm(join(session, 'd'), { recursive: true });
      await mkdir(join(session, 'd'));
    }
    expect(steps).toBeGreaterThan(3);
    for (let call = 0; call <= steps; call++) {
      const box = createSandbox({ root: session, cleanStaleFiles: false });
      swapAt.call = call;
      swapAt.count = 0;
      swapAt.swap = swap;
      const result = await (name.startsWith('update')
        ? box.update(path, () => `write at ${call}`)
        : box.writeText(path, `write at ${call}`)
      ).catch((error: unknown) => error);
      swapAt.call = -1;
      if (result !== undefined && typeof result !== 'string') expect(CtxloomError.is(result)).toBe(true);
      expect(
        readdirSync(outside, { recursive: true }).filter((entry) => String(entry).includes('.')),
      ).toEqual([]);
      // Reset: the session folder back to a plain `d`.
      await rm(join(session, 'd'), { recursive: true, force: true });
      await rm(join(session, 'd-moved'), { recursive: true, force: true });
      await rm(join(outside, 'e'), { recursive: true, force: true });
      await mkdir(join(session, 'd'));
    }
  });
});
