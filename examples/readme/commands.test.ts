import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createBufferIo } from '../../src/cli/io.ts';
import { main } from '../../src/cli/main.ts';
import { blocksOf, REPO } from '../doc-examples.test-support.ts';
import { ctxloomArgv, parseShellLine, serveOnce } from '../shell-lines.test-support.ts';

// The UI build is not what these commands show; the server runs its API without it.
vi.mock('../../src/server/ensure-web-build.ts', () => ({ ensureWebBuild: async () => undefined }));

let cwd: string;
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'ctxloom-readme-'));
  await cp(join(REPO, 'examples/notebook'), join(cwd, 'examples/notebook'), { recursive: true });
  vi.stubEnv('CTXLOOM_MODEL', '');
  vi.stubEnv('CTXLOOM_TOKEN', '');
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await rm(cwd, { recursive: true, force: true });
});

/** `ctxloom <argv>` in this process from the copy's folder; `serve` answers once and stops. */
async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  if (argv[0] === 'serve') {
    const { status, body } = await serveOnce(argv.slice(1), cwd);
    expect(body.model.spec).toBe('offline');
    return { code: status === 200 ? 0 : 1, out: JSON.stringify(body), err: '' };
  }
  const io = createBufferIo({ cwd });
  // `mcp` serves until its stdin ends: here it ends at once.
  const stdin = new PassThrough();
  stdin.end();
  const code = await main(argv, { ...io.io, stdin, stdoutStream: new PassThrough() });
  return { code, out: io.out(), err: io.err() };
}

describe("the README's shell lines", () => {
  it("runs the quick start's `npm start` as written (npm ci and npm test are .ci/run's)", async () => {
    const [quickStart] = await blocksOf('README.md', 'sh');
    const lines = (quickStart as string).split('\n').map(parseShellLine);
    expect(lines.map((line) => line.commands.map((command) => command.join(' ')))).toEqual([
      ['npm ci', 'npm start'],
      ['npm ci', 'npm test'],
    ]);
    const start = await ctxloomArgv(['npm', 'start']);
    expect(start?.[0]).toBe('serve');
    const { out, code } = await run(start as string[]);
    expect(code).toBe(0);
    expect((JSON.parse(out) as { sessions: unknown[] }).sessions.length).toBeGreaterThan(0);
  });

  it('runs every ctxloom line of the command list as written, on a copy of the example', async () => {
    const block = (await blocksOf('README.md', 'sh')).find((text) => text.includes(' compile '));
    const lines = (block as string).split('\n');
    const ran: string[] = [];
    for (const line of lines) {
      const [command, ...more] = parseShellLine(line).commands;
      expect(more).toEqual([]);
      const words = command as string[];
      // The ETL example is a script of its own: examples/readme/etl-commands.test.ts runs it.
      if (words.slice(0, 3).join(' ') === 'npm run example:etl') continue;
      const redirect = words.indexOf('>');
      const argv = (await ctxloomArgv(redirect < 0 ? words : words.slice(0, redirect))) as string[];
      const result = await run(argv);
      expect({ line, code: result.code, err: result.err }).toMatchObject({ line, code: 0 });
      ran.push(argv[0] as string);
      if (argv[0] === 'compile') {
        // `> request.json`: the exact request body, valid JSON.
        const body = JSON.parse(result.out) as Record<string, unknown>;
        expect(Object.keys(body)).toEqual(
          expect.arrayContaining(['model', 'messages', 'tools', 'max_tokens']),
        );
        expect(words[redirect + 1]).toBe('request.json');
      }
      if (argv[0] === 'preview') expect(result.out).toMatch(/^history\s+\d/mu);
      if (argv[0] === 'blocks') expect(result.out).toMatch(/# 基本信息 \[[0-9a-f]{6}\] {2}L1-\d+/u);
      if (argv[0] === 'demo') expect(result.out).toContain('messages that would be sent');
    }
    expect(ran).toEqual(['compile', 'preview', 'blocks', 'mcp', 'serve', 'demo']);
  });
});
