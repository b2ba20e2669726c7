/**
 * bench/server — bounded loopback load on the notebook server with the offline model:
 * 100 concurrent chats (one per session), then 1,000 chats in total with 100 in flight.
 * The server runs in its own process (`ctxloom serve`), so its memory is measured alone
 * (peak RSS from /proc). Reports p50 / p99 time to first byte (the `start` chunk), time to
 * the context report (compile done, user message stored), the whole stream, errors, server
 * memory, and the floor: the same burst against a route that does nothing, in the same run.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type BenchContext,
  type BenchMetric,
  createBenchResult,
  formatBenchResult,
  writeBenchResult,
} from '../lib/index.ts';
import { type ChatSample, quantile, runBounded, sendChat } from './load.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const SESSIONS = 100;
const QUESTIONS = [
  'What does the leader do when a follower log conflicts with its own?',
  '为什么只能直接提交当前任期的日志条目？',
  'Explain the election restriction [guidance.md#教学指南：Raft 共识/练习题]',
  'please read milestones.md',
  '选举超时为什么要随机？',
];

/** Runs the load and returns the metrics (shared `BenchMetric` shape). */
export async function run(context: Pick<BenchContext, 'log'>): Promise<BenchMetric[]> {
  const root = await mkdtemp(join(tmpdir(), 'ctxloom-bench-server-'));
  let server: ChildProcess | undefined;
  try {
    await createWorkspace(root);
    const started = await startServer(root);
    server = started.child;
    const { url } = started;
    const pid = server.pid as number;
    context.log(`server ${url} (pid ${pid}), ${SESSIONS} sessions`);
    const baseline = await memoryOf(pid);
    // Warm-up: load the tokenizer and parse caches once (not measured).
    await sendChat({
      url,
      token: BENCH_TOKEN,
      sessionId: 's000',
      text: QUESTIONS[0] as string,
      id: 'warm-0',
    });

    // Floor of this machine: the same burst on a route that does nothing (404), same run.
    await fetch(`${url}/api/nothing`, auth);
    const floor = await runBounded(SESSIONS, SESSIONS, async () => {
      const begin = performance.now();
      const response = await fetch(`${url}/api/nothing`, auth);
      await response.arrayBuffer();
      return performance.now() - begin;
    });
    context.log(
      `floor (404 route, 100 concurrent): p50 ${quantile(floor, 0.5).toFixed(1)} ms, p99 ${quantile(floor, 0.99).toFixed(1)} ms`,
    );

    let sequence = 0;
    const chat = (index: number) =>
      sendChat({
        url,
        token: BENCH_TOKEN,
        sessionId: `s${String(index % SESSIONS).padStart(3, '0')}`,
        text: QUESTIONS[index % QUESTIONS.length] as string,
        id: `load-${++sequence}`,
      });
    const burst = await runBounded(SESSIONS, SESSIONS, chat);
    context.log(summary('100 concurrent', burst));
    const started1000 = performance.now();
    const total = await runBounded(1000, SESSIONS, chat);
    const seconds = (performance.now() - started1000) / 1000;
    context.log(summary('1000 total', total));
    const memory = await memoryOf(pid);
    const errors = [...burst, ...total].filter((sample) => sample.error !== undefined);
    for (const sample of errors.slice(0, 3)) context.log(`error: ${sample.error}`);
    return [
      metric('burst100.ttfb.p50', quantile(ttfb(burst), 0.5), 'ms'),
      {
        ...metric('burst100.ttfb.p99', quantile(ttfb(burst), 0.99), 'ms', '≤ 100 ms'),
        peer: { name: 'no-op 404 route, same burst', value: round(quantile(floor, 0.99)) },
      },
      metric(
        'burst100.report.p99',
        quantile(
          burst.map((sample) => sample.reportMs),
          0.99,
        ),
        'ms',
      ),
      metric('total1000.ttfb.p50', quantile(ttfb(total), 0.5), 'ms'),
      metric('total1000.ttfb.p99', quantile(ttfb(total), 0.99), 'ms', '≤ 100 ms'),
      metric(
        'total1000.report.p99',
        quantile(
          total.map((sample) => sample.reportMs),
          0.99,
        ),
        'ms',
      ),
      metric(
        'total1000.stream.p99',
        quantile(
          total.map((sample) => sample.totalMs),
          0.99,
        ),
        'ms',
      ),
      metric('total1000.throughput', 1000 / seconds, 'chats/s'),
      metric('errors', errors.length, 'count', '0'),
      metric('server.rss.baseline', baseline.rssMb, 'MB'),
      metric('server.rss.after', memory.rssMb, 'MB'),
      metric('server.rss.peak', memory.peakMb, 'MB'),
    ];
  } finally {
    server?.kill('SIGTERM');
    await rm(root, { recursive: true, force: true });
  }
}

function ttfb(samples: ChatSample[]): number[] {
  return samples.map((sample) => sample.ttfbMs);
}

function metric(name: string, value: number, unit: string, target?: string): BenchMetric {
  return { name, value: round(value), unit, ...(target === undefined ? {} : { target }) };
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}

function summary(label: string, samples: ChatSample[]): string {
  const values = ttfb(samples);
  const errors = samples.filter((sample) => sample.error !== undefined).length;
  return `${label}: ttfb p50 ${quantile(values, 0.5).toFixed(1)} ms, p99 ${quantile(values, 0.99).toFixed(1)} ms, errors ${errors}`;
}

/** The notebook example with its session copied into {@link SESSIONS} sessions. */
async function createWorkspace(root: string): Promise<void> {
  const example = join(REPO, 'examples/notebook');
  for (const file of ['profile.md', 'system-prompt.md']) await cp(join(example, file), join(root, file));
  const records = [];
  for (let index = 0; index < SESSIONS; index++) {
    const id = `s${String(index).padStart(3, '0')}`;
    await cp(join(example, 'raft-consensus'), join(root, id), { recursive: true });
    records.push({ id, concept: `bench ${id}`, createdAt: '2026-01-01T00:00:00.000Z' });
  }
  await writeFile(join(root, 'sessions.json'), `${JSON.stringify(records, null, 2)}\n`);
}

/** The server's API token for this benchmark (every `/api` request needs one). */
const BENCH_TOKEN = 'bench-server-token';
const auth = { headers: { Authorization: `Bearer ${BENCH_TOKEN}` } };

async function startServer(root: string): Promise<{ child: ChildProcess; url: string }> {
  // BENCH_SERVER_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") profiles the server.
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== '');
  const child = spawn(
    process.execPath,
    [...nodeArgs, join(REPO, 'src/cli/bin.ts'), 'serve', root, '--port', '0'],
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
  const url = await new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /http:\/\/127\.0\.0\.1:\d+/u.exec(output);
      if (match) resolve(match[0]);
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${output}`)));
  });
  return { child, url };
}

async function memoryOf(pid: number): Promise<{ rssMb: number; peakMb: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) =>
    Number(new RegExp(`${field}:\\s+(\\d+)`, 'u').exec(status)?.[1] ?? Number.NaN);
  return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
}

if (import.meta.main) {
  const result = createBenchResult('server', await run({ log: (message) => console.error(`  ${message}`) }));
  const path = writeBenchResult(result);
  console.log(`${formatBenchResult(result)}\n→ ${path}`);
}
