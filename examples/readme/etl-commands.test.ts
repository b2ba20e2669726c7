import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { blocksOf, REPO } from '../doc-examples.test-support.ts';
import { parseShellLine } from '../shell-lines.test-support.ts';

// The README's `npm run example:etl` lines, run as written in child processes (the script
// plays the whole scripted session; `--serve` then keeps the notebook open until stopped).
const started: ChildProcess[] = [];
afterAll(() => {
  for (const child of started)
    if (child.exitCode === null && child.pid !== undefined) process.kill(-child.pid);
});

/** The README's `npm run example:etl …` lines, as words. */
async function etlLines(): Promise<string[][]> {
  const block = (await blocksOf('README.md', 'sh')).find((text) => text.includes('example:etl')) ?? '';
  return block
    .split('\n')
    .map((line) => parseShellLine(line).commands[0] ?? [])
    .filter((words) => words.slice(0, 3).join(' ') === 'npm run example:etl');
}

/** Starts `words` (an npm command) from the repository's root in a process group of its own. */
function start(words: readonly string[], env: Record<string, string>) {
  const child = spawn(words[0] as string, words.slice(1), {
    cwd: REPO,
    env: { ...process.env, CTXLOOM_MODEL: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  started.push(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, output: () => output };
}

describe("the README's ETL lines", () => {
  it('are the two documented: the scripted run, and the same with --serve', async () => {
    expect((await etlLines()).map((words) => words.join(' '))).toEqual([
      'npm run example:etl',
      'npm run example:etl -- --serve',
    ]);
  });

  it('`npm run example:etl` plays routing, TODO deltas and /compress on the dynamic process, resumes, and exits 0', async () => {
    const [line] = await etlLines();
    const run = start(line as string[], {});
    expect({ code: await run.exited, output: run.output() }).toMatchObject({ code: 0 });
    expect(run.output()).toContain('routed → analyst');
    expect(run.output()).toContain('propose_global_delta:applied');
    expect(run.output()).toContain("command /compress (the engine's)");
    expect(run.output()).toContain('process restarted: resuming');
    expect(run.output()).toContain('--- todo__context sent to the tester ---');
  });

  it('`npm run example:etl -- --serve` then serves the notebook on the ETL session (PORT=0 for a free port)', async () => {
    const [, line] = await etlLines();
    const run = start(line as string[], { PORT: '0' });
    await expect
      .poll(() => run.output(), { timeout: 300_000, interval: 500 })
      .toMatch(/notebook on the ETL session: http:\/\/\S+\/\?token=\S+/u);
    const [, url, token] =
      /notebook on the ETL session: (http:\/\/\S+?)\/\?token=(\S+)/u.exec(run.output()) ?? [];
    const response = await fetch(`${url}/api/sessions`, {
      headers: { Authorization: `Bearer ${decodeURIComponent(token as string)}` },
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { sessions: { id: string }[] };
    expect(body.sessions.map((session) => session.id)).toContain('window-1');
    process.kill(-(run.child.pid as number), 'SIGTERM');
    await run.exited;
  });
});
