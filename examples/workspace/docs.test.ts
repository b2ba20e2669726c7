import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createBufferIo } from '../../src/cli/io.ts';
import { main } from '../../src/cli/main.ts';
import { createOfflineModel } from '../../src/llm/index.ts';
import { createNotebookApp } from '../../src/server/create-notebook-app.ts';
import { openWorkspace } from '../../src/workspace/index.ts';
import { blocksOf, expectQuotedWhole, REPO } from '../doc-examples.test-support.ts';
import { ctxloomArgv, parseShellLine, serveOnce } from '../shell-lines.test-support.ts';

// The UI build is not what these commands show; the server runs its API without it.
vi.mock('../../src/server/ensure-web-build.ts', () => ({ ensureWebBuild: async () => undefined }));

const EXAMPLE = join(REPO, 'examples/notebook');

/** A shell line's environment and the ctxloom arguments of each of its commands. */
async function parseLine(line: string) {
  const { env, commands } = parseShellLine(line);
  const argvs: string[][] = [];
  for (const command of commands) {
    const argv = await ctxloomArgv(command);
    if (argv !== undefined) argvs.push(argv);
  }
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
      const { argvs } = await parseLine(line);
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
    const [block, ...rest] = await blocksOf('docs/notebook.md', 'sh');
    expect(rest).toEqual([]);
    const lines = (block as string).split('\n');
    expect(lines.length).toBe(4);
    for (const line of lines) {
      const { env, argvs } = await parseLine(line);
      vi.unstubAllEnvs();
      vi.stubEnv('CTXLOOM_MODEL', '');
      vi.stubEnv('CTXLOOM_TOKEN', '');
      for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
      for (const argv of argvs) {
        expect(argv[0]).toBe('serve');
        const { status, body, token } = await serveOnce(argv.slice(1), cwd);
        expect(status).toBe(200);
        expect(body.model.spec).toBe(env.CTXLOOM_MODEL ?? 'offline');
        if (env.CTXLOOM_TOKEN !== undefined) expect(token).toBe(env.CTXLOOM_TOKEN);
      }
    }
  });
});
