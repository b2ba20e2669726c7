import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runServe } from '../../src/cli/commands/serve.ts';
import { createBufferIo } from '../../src/cli/io.ts';
import { main } from '../../src/cli/main.ts';
import { createOfflineModel } from '../../src/llm/index.ts';
import { createNotebookApp } from '../../src/server/create-notebook-app.ts';
import { openWorkspace } from '../../src/workspace/index.ts';
import { blocksOf, expectQuotedWhole, REPO } from '../doc-examples.test-support.ts';

// The UI build is not what these commands show; the server runs its API without it.
vi.mock('../../src/server/ensure-web-build.ts', () => ({ ensureWebBuild: async () => undefined }));

const EXAMPLE = join(REPO, 'examples/notebook');

/** One shell line as argv and environment: `A=b npx ctxloom x y  # comment` → ['x', 'y'], { A: 'b' }. */
function parseLine(line: string, start: readonly string[]) {
  const words = line
    .replace(/\s+#.*$/u, '')
    .trim()
    .split(/\s+/u);
  const env: Record<string, string> = {};
  while (/^[A-Z_]+=/u.test(words[0] ?? '')) {
    const [name, value] = (words.shift() as string).split('=') as [string, string];
    env[name] = value;
  }
  const commands = words
    .join(' ')
    .split(' && ')
    .map((part) => part.split(' '));
  const argvs = commands.flatMap((command) => {
    if (command.join(' ') === 'npm ci') return []; // the install, not a ctxloom command
    if (command.join(' ') === 'npm start') return [[...start]];
    if (command[0] === 'npx' && command[1] === 'ctxloom') return [command.slice(2)];
    if (command.slice(0, 3).join(' ') === 'npm run ctxloom' && command[3] === '--') return [command.slice(4)];
    throw new Error(`not a ctxloom command: ${command.join(' ')}`);
  });
  return { env, argvs };
}

let cwd: string;
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'ctxloom-docs-'));
  for (const folder of ['examples/notebook', 'my-workspace', 'ws']) {
    await cp(EXAMPLE, join(cwd, folder), { recursive: true });
  }
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await rm(cwd, { recursive: true, force: true });
});

describe('docs/workspace.md', () => {
  it('quotes examples/workspace/compile-session.ts whole, and has no other TypeScript block', async () => {
    await expectQuotedWhole('docs/workspace.md', ['examples/workspace/compile-session.ts']);
  });

  it('compiles the bytes the notebook previews for the same query', async () => {
    const compiled = await import('./compile-session.ts');
    const workspace = openWorkspace({ root: EXAMPLE });
    const app = createNotebookApp({
      workspace,
      model: { model: createOfflineModel(), spec: 'offline', offline: true },
    });
    const query = encodeURIComponent('选举限制是什么？');
    const preview = (await (
      await app.request(`/api/sessions/raft-consensus/context-preview?query=${query}`)
    ).json()) as { messages: unknown[]; report: { totalTokens: number } };
    expect(JSON.parse(JSON.stringify(compiled.messages))).toEqual(preview.messages);
    expect(compiled.report.totalTokens).toBe(preview.report.totalTokens);
    expect(compiled.systemPrompt).not.toBe('');
    expect(JSON.stringify(compiled.messages.at(-1))).toContain('选举限制是什么？');
    for (const target of [compiled.aiSdk, compiled.openai, compiled.anthropic]) expect(target).toBeDefined();
    expect(compiled.warnings).toEqual([]);
  });

  it('runs every shell line as written (on a copy of the example)', async () => {
    const [block, ...rest] = await blocksOf('docs/workspace.md', 'sh');
    expect(rest).toEqual([]);
    const lines = (block as string).split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(5);
    for (const line of lines) {
      const { argvs } = parseLine(line, []);
      for (const argv of argvs) {
        const run = createBufferIo({ cwd });
        // `mcp` serves until its stdin ends: here it ends at once.
        const stdin = new PassThrough();
        stdin.end();
        const code = await main(argv, { ...run.io, stdin, stdoutStream: new PassThrough() });
        expect({ line, code, err: run.err() }).toMatchObject({ line, code: 0 });
        if (argv[0] !== 'mcp') expect(run.out().length).toBeGreaterThan(0);
      }
    }
  });
});

describe('docs/notebook.md', () => {
  it('starts every server line as written (the fixed ports as port 0; the UI build left out)', async () => {
    const packageJson = JSON.parse(await readFile(join(REPO, 'package.json'), 'utf8')) as {
      scripts: { start: string };
    };
    const start = packageJson.scripts.start
      .split(' ')
      .slice(packageJson.scripts.start.split(' ').indexOf('src/cli/bin.ts') + 1);
    const [block, ...rest] = await blocksOf('docs/notebook.md', 'sh');
    expect(rest).toEqual([]);
    const lines = (block as string).split('\n');
    expect(lines.length).toBe(4);
    for (const line of lines) {
      const { env, argvs } = parseLine(line, start);
      vi.unstubAllEnvs();
      vi.stubEnv('CTXLOOM_MODEL', '');
      vi.stubEnv('CTXLOOM_TOKEN', '');
      for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
      for (const argv of argvs) {
        expect(argv[0]).toBe('serve');
        const args = argv.slice(1);
        const port = args.indexOf('--port');
        if (port >= 0) args.splice(port, 2);
        const run = createBufferIo({ cwd });
        const stop = new AbortController();
        const running = runServe([...args, '--port', '0'], run.io, stop.signal);
        try {
          await expect.poll(() => run.out(), { timeout: 20_000 }).toMatch(/\/\?token=/u);
          const [, url, token] = /(http:\/\/\S+?)\/\?token=(\S+)/u.exec(run.out()) ?? [];
          const local = (url as string).replace('0.0.0.0', '127.0.0.1');
          const response = await fetch(`${local}/api/sessions`, {
            headers: { Authorization: `Bearer ${decodeURIComponent(token as string)}` },
          });
          expect(response.status).toBe(200);
          const body = (await response.json()) as { model: { spec: string }; sessions: unknown[] };
          expect(body.model.spec).toBe(env.CTXLOOM_MODEL ?? 'offline');
          if (env.CTXLOOM_TOKEN !== undefined) expect(token).toBe(env.CTXLOOM_TOKEN);
        } finally {
          stop.abort();
          expect(await running).toBe(0);
        }
      }
    }
  });
});
