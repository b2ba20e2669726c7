/**
 * The shell lines of README.md and docs/*.md, run as written: parsed into `ctxloom` arguments
 * (`ctxloomArgv`) and run in this process, `serve` on port 0 (`serveOnce`). A test importing
 * this mocks `src/server/ensure-web-build.ts`: the UI build is not what the lines are checked for.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { runServe } from '../src/cli/commands/serve.ts';
import { createBufferIo } from '../src/cli/io.ts';
import { REPO } from './doc-examples.test-support.ts';

/**
 * One shell line of a page: its `NAME=value` prefix and its commands (joined by `&&`) as
 * words, a trailing `# comment` dropped: `A=b npx ctxloom x y  # c` → { A: 'b' }, [['npx', 'ctxloom', 'x', 'y']].
 */
export function parseShellLine(line: string): { env: Record<string, string>; commands: string[][] } {
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
  return { env, commands };
}

/**
 * The `ctxloom` arguments a command runs: `npx ctxloom …`, `npm run [-s] ctxloom -- …`, or
 * `npm start` (package.json's start script); `undefined` for `npm ci`, the install. Anything
 * else throws.
 */
export async function ctxloomArgv(command: readonly string[]): Promise<string[] | undefined> {
  const text = command.join(' ');
  if (text === 'npm ci') return undefined;
  if (text === 'npm start') {
    const packageJson = JSON.parse(await readFile(join(REPO, 'package.json'), 'utf8')) as {
      scripts: { start: string };
    };
    const start = packageJson.scripts.start.split(' ');
    return start.slice(start.indexOf('src/cli/bin.ts') + 1);
  }
  if (command[0] === 'npx' && command[1] === 'ctxloom') return command.slice(2);
  const run = command[2] === '-s' ? 3 : 2;
  if (
    command[0] === 'npm' &&
    command[1] === 'run' &&
    command[run] === 'ctxloom' &&
    command[run + 1] === '--'
  ) {
    return command.slice(run + 2);
  }
  throw new Error(`not a ctxloom command: ${text}`);
}

/**
 * Runs `ctxloom serve <args>` in this process on port 0 (a fixed `--port` is replaced), waits
 * for the URL it prints, asks `GET /api/sessions` with the printed token, stops the server and
 * returns the answer (the server must exit 0).
 */
export async function serveOnce(
  args: readonly string[],
  cwd: string,
): Promise<{ status: number; body: { model: { spec: string }; sessions: unknown[] }; token: string }> {
  const rest = [...args];
  const port = rest.indexOf('--port');
  if (port >= 0) rest.splice(port, 2);
  const run = createBufferIo({ cwd });
  const stop = new AbortController();
  const running = runServe([...rest, '--port', '0'], run.io, stop.signal);
  try {
    await expect.poll(() => run.out(), { timeout: 20_000 }).toMatch(/\/\?token=/u);
    const [, url, token] = /(http:\/\/\S+?)\/\?token=(\S+)/u.exec(run.out()) ?? [];
    const local = (url as string).replace('0.0.0.0', '127.0.0.1');
    const response = await fetch(`${local}/api/sessions`, {
      headers: { Authorization: `Bearer ${decodeURIComponent(token as string)}` },
    });
    return {
      status: response.status,
      body: (await response.json()) as { model: { spec: string }; sessions: unknown[] },
      token: token as string,
    };
  } finally {
    stop.abort();
    expect(await running).toBe(0);
  }
}
