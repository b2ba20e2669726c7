import { describe, expect, it } from 'vitest';
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

  it('exits non-zero with the file named when the example is missing', async () => {
    const { io, err } = capture();
    expect(await main(['demo', 'examples/nope'], io)).toBe(1);
    expect(err()).toMatch(/not-found: cannot read .*examples\/nope\/request\.json/);
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
});
