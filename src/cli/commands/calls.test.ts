import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBufferIo } from '../io.ts';
import { main } from '../main.ts';

const example = fileURLToPath(new URL('../../../examples/notebook', import.meta.url));
let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'ctxloom-calls-'));
  await cp(example, root, { recursive: true });
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('ctxloom chat and ctxloom calls', () => {
  it('logs every turn through the engine, shows a call and diffs it against the one before', async () => {
    for (const text of ['What is a term?', 'And an election?']) {
      const run = createBufferIo({ cwd: root });
      expect(await main(['chat', 'raft-consensus', text], run.io)).toBe(0);
      expect(run.out()).toContain('offline');
    }
    const list = createBufferIo({ cwd: root });
    expect(await main(['calls', 'raft-consensus'], list.io)).toBe(0);
    expect(list.out()).toMatch(/2 calls/u);
    const diff = createBufferIo({ cwd: root });
    expect(await main(['calls', 'raft-consensus', '--diff=-1'], diff.io)).toBe(0);
    expect(diff.out()).toMatch(/call 1 → 2: \d+ → \d+ tokens/u);
    expect(diff.out()).toMatch(/added: [1-9]/u);
    expect(diff.out()).toMatch(/cache: \d+ tokens could be served/u);
    const show = createBufferIo({ cwd: root });
    expect(await main(['calls', 'raft-consensus', '--show=-1'], show.io)).toBe(0);
    expect(show.out()).toContain('history');
  });

  it('refuses a call number that is 0 or not a decimal integer (exit 2), never showing call 1', async () => {
    for (const value of ['0', '', '0x1', '1e0', '1.0', ' 1', '-0']) {
      for (const option of ['--show', '--diff']) {
        const run = createBufferIo({ cwd: root });
        expect(
          await main(['calls', 'raft-consensus', `${option}=${value}`], run.io),
          `${option}=${value}`,
        ).toBe(2);
        expect(run.out()).toBe('');
        expect(run.err()).toContain('ctxloom calls: invalid-argument:');
      }
    }
    const first = createBufferIo({ cwd: root });
    expect(await main(['calls', 'raft-consensus', '--show', '1'], first.io)).toBe(0);
    expect(first.out()).toMatch(/^call \S+ · turn /u);
  });

  it('takes --limit only as a plain positive decimal integer, naming the option and value when not', async () => {
    for (const value of [
      '0x10',
      '0o20',
      '0b10000',
      '1e1',
      '16.0',
      ' 16',
      '+16',
      '',
      '0',
      '-0',
      '-1',
      '1e400',
    ]) {
      const run = createBufferIo({ cwd: root });
      expect(await main(['calls', 'raft-consensus', `--limit=${value}`], run.io), `--limit=${value}`).toBe(2);
      expect(run.out()).toBe('');
      expect(run.err()).toContain(
        `ctxloom calls: invalid-argument: --limit takes a positive decimal integer, not ${JSON.stringify(value)}`,
      );
    }
    const one = createBufferIo({ cwd: root });
    expect(await main(['calls', 'raft-consensus', '--limit', '1'], one.io)).toBe(0);
    expect(one.out()).toMatch(/· 1 call\n/u);
  });
});
