import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CliIo, createBufferIo } from './io.ts';
import { main } from './main.ts';

const capture = () => createBufferIo();

describe('ctxloom demo', () => {
  it('compiles examples/demo and prints the messages and the per-layer report', async () => {
    const { io, out } = capture();
    const code = await main(['demo', 'examples/demo'], io);
    expect(code).toBe(0);
    expect(out()).toContain('tokenizer o200k_base');
    expect(out()).toMatch(/^\s+1\s+system\s+system\s+You are a patient/mu);
    expect(out()).toMatch(/^history\s+[\d,]+\s+[\d.]+%/mu);
    expect(out()).toContain('summarised into compression__context');
  });

  it('exits non-zero with the folder named once, as typed, when the example is missing', async () => {
    const { io, err } = capture();
    expect(await main(['demo', 'examples/nope'], io)).toBe(1);
    expect(err()).toBe('ctxloom demo: not-found: demo folder does not exist (examples/nope)\n');
  });

  describe('on a broken example', () => {
    let dir: string;
    beforeEach(async () => {
      dir = await mkdtemp(join(tmpdir(), 'ctxloom-demo-'));
      await cp('examples/demo', dir, { recursive: true });
    });
    afterEach(async () => {
      await rm(dir, { recursive: true, force: true });
    });
    const setRequest = async (change: (request: Record<string, unknown>) => void) => {
      const request = JSON.parse(await readFile(join(dir, 'request.json'), 'utf8')) as Record<
        string,
        unknown
      >;
      change(request);
      await writeFile(join(dir, 'request.json'), JSON.stringify(request));
    };

    it.each<[string, () => Promise<void>, RegExp]>([
      [
        'a missing system-prompt.md',
        () => rm(join(dir, 'system-prompt.md')),
        /^not-found: no such file \(system-prompt\.md\)$/u,
      ],
      [
        'a folder named system-prompt.md',
        async () => {
          await rm(join(dir, 'system-prompt.md'));
          await mkdir(join(dir, 'system-prompt.md'));
        },
        /^invalid-argument: .*folder.*\(system-prompt\.md\)$/u,
      ],
      ['a missing request.json', () => rm(join(dir, 'request.json')), /^not-found: .*\(request\.json\)$/u],
      [
        'a history that is not a list',
        () => writeFile(join(dir, 'history.json'), '{}'),
        /^invalid-config: invalid message: .*\(history\.json.*\)$/u,
      ],
      [
        'a message whose content is a number',
        () => writeFile(join(dir, 'history.json'), '[{"id":"m1","role":"user","content":5}]'),
        /^invalid-config: invalid message: .*\(history\.json:1:\d+ at 0\.content\)$/u,
      ],
      [
        'a history that is not JSON',
        () => writeFile(join(dir, 'history.json'), '[\n  {"id": }\n]'),
        /^parse-error: .*\(history\.json:2:\d+\)$/u,
      ],
      [
        'a knowledge file outside the folder',
        () =>
          setRequest(
            (request) => (request.knowledge = [{ file: '../../../../../../../etc/passwd', priority: 1 }]),
          ),
        /^path-escape: refused path "\.\.\/.*etc\/passwd"/u,
      ],
      [
        'an absolute knowledge file',
        () => setRequest((request) => (request.knowledge = [{ file: '/etc/passwd', priority: 1 }])),
        /^path-escape: refused path "\/etc\/passwd"/u,
      ],
    ])(
      '%s: one typed line naming the file in the folder (exit 1), not an internal error',
      async (_, breakIt, expected) => {
        await breakIt();
        const { io, out, err } = capture();
        expect(await main(['demo', dir], io)).toBe(1);
        expect(out()).toBe('');
        const line = err()
          .replace(/^ctxloom demo: /u, '')
          .replace(/\n$/u, '');
        expect(line).toMatch(expected);
        expect(err().split('\n')).toHaveLength(2);
        expect(err()).not.toContain(dir);
      },
    );
  });

  it('reports an unexpected error as one internal-error line (exit 1), the stack only with CTXLOOM_DEBUG=1', async () => {
    const failing = (): CliIo => ({
      stdout: () => {
        throw new TypeError('boom at /somewhere/outside');
      },
      stderr: (text) => {
        err += text;
      },
      color: false,
    });
    let err = '';
    const debug = process.env.CTXLOOM_DEBUG;
    try {
      delete process.env.CTXLOOM_DEBUG;
      expect(await main(['blocks', '--help'], failing())).toBe(1);
      expect(err).toBe('ctxloom blocks: internal error (TypeError); CTXLOOM_DEBUG=1 prints it in full\n');
      err = '';
      process.env.CTXLOOM_DEBUG = '1';
      expect(await main(['blocks', '--help'], failing())).toBe(1);
      expect(err).toMatch(
        /^ctxloom blocks: internal error \(TypeError\):\nTypeError: boom at \/somewhere\/outside\n\s+at /u,
      );
    } finally {
      if (debug === undefined) delete process.env.CTXLOOM_DEBUG;
      else process.env.CTXLOOM_DEBUG = debug;
    }
  });

  it('prints help and rejects unknown commands', async () => {
    const help = capture();
    expect(await main(['--help'], help.io)).toBe(0);
    expect(help.out()).toContain('usage:');
    const unknown = capture();
    expect(await main(['frobnicate'], unknown.io)).toBe(2);
    expect(unknown.err()).toContain('unknown command "frobnicate"');
  });

  it('answers `help <command>` with that help, and an unknown topic as an unknown command (exit 2)', async () => {
    const topic = capture();
    expect(await main(['help', 'blocks'], topic.io)).toBe(0);
    expect(topic.out()).toContain('Usage: ctxloom blocks');
    const general = capture();
    expect(await main(['help'], general.io)).toBe(0);
    expect(general.out()).toContain('usage:');
    const unknown = capture();
    expect(await main(['help', 'nope'], unknown.io)).toBe(2);
    expect(unknown.out()).toBe('');
    expect(unknown.err()).toMatch(/^ctxloom: unknown command "nope"\n\n.*usage:/su);
  });
});
