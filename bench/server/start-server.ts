import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** The server's API token for this benchmark (every `/api` request needs one). */
export const BENCH_TOKEN = 'bench-server-token';

/** A `ctxloom serve` process of the benchmark. */
export interface BenchServer {
  /** `http://127.0.0.1:<port>` as printed. */
  url: string;
  pid: number;
  /** Current and peak resident memory of the process, from /proc. */
  memory(): Promise<{ rssMb: number; peakMb: number }>;
  /** SIGTERM, then SIGKILL after 10 s; resolves when the process exited. */
  stop(): Promise<void>;
}

/**
 * Starts `ctxloom serve <root> --port 0 [--store <spec>]` in its own process, as a user does,
 * on loopback, with the offline model (no chunk delay) and {@link BENCH_TOKEN}.
 * `BENCH_SERVER_NODE_ARGS` (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") profiles the server.
 */
export async function startServer(options: { root: string; store?: string }): Promise<BenchServer> {
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== '');
  const storeArgs = options.store === undefined ? [] : ['--store', options.store];
  const child: ChildProcess = spawn(
    process.execPath,
    [
      '--conditions=ctxloom-source',
      ...nodeArgs,
      join(REPO, 'src/cli/bin.ts'),
      'serve',
      options.root,
      '--port',
      '0',
      ...storeArgs,
    ],
    {
      env: {
        ...process.env,
        CTXLOOM_MODEL: 'offline',
        CTXLOOM_TOKEN: BENCH_TOKEN,
        CTXLOOM_OFFLINE_CHUNK_MS: '0',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /http:\/\/127\.0\.0\.1:\d+/u.exec(output);
      if (match) resolve(match[0]);
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${output}`)));
  });
  child.stdout?.resume();
  const pid = child.pid as number;
  return {
    url,
    pid,
    async memory() {
      const status = await readFile(`/proc/${pid}/status`, 'utf8');
      const kb = (field: string) =>
        Number(new RegExp(`${field}:\\s+(\\d+)`, 'u').exec(status)?.[1] ?? Number.NaN);
      return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
