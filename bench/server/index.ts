/**
 * bench/server — bounded loopback load on the notebook server with the offline model, servers
 * started as real processes (`ctxloom serve`):
 *
 * 1. one process on the workspace files: 100 concurrent chats (one per session), then 1,000
 *    chats in total with 100 in flight; the floor is the same burst on a route that does
 *    nothing (404), in the same run;
 * 2. two processes on one PostgreSQL store (a schema made for this run and dropped after it):
 *    100 concurrent chats split across them, then 300 with 100 in flight where every session
 *    gets chats from both processes.
 *
 * For each: errors, lost (acknowledged turns whose question or answer the store does not hold,
 * read back directly), duplicated, time to the response headers and to the first event
 * (p50 / p99), time to the context report, and the machine's load (`os.loadavg()`) around it.
 * `CTXLOOM_PG_URL` names the database (default `postgres://postgres@127.0.0.1:5432/test`).
 */
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import {
  type BenchContext,
  type BenchMetric,
  createBenchResult,
  formatBenchResult,
  writeBenchResult,
} from '../lib/index.ts';
import { countStored, type SentChat } from './count-stored.ts';
import { type ChatSample, quantile, runBounded, sendChat } from './load.ts';
import { BENCH_TOKEN, type BenchServer, startServer } from './start-server.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const SESSIONS = 100;
const PG_URL = process.env.CTXLOOM_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const QUESTIONS = [
  'What does the leader do when a follower log conflicts with its own?',
  '为什么只能直接提交当前任期的日志条目？',
  'Explain the election restriction [guidance.md#教学指南：Raft 共识/练习题]',
  'please read milestones.md',
  '选举超时为什么要随机？',
];
const auth = { headers: { Authorization: `Bearer ${BENCH_TOKEN}` } };

/** Runs both loads and returns the metrics (shared `BenchMetric` shape). */
export async function run(context: Pick<BenchContext, 'log'>): Promise<BenchMetric[]> {
  return [...(await runOneProcess(context)), ...(await runTwoProcessesOnPostgres(context))];
}

/** One server process on the workspace files. */
async function runOneProcess(context: Pick<BenchContext, 'log'>): Promise<BenchMetric[]> {
  const root = await mkdtemp(join(tmpdir(), 'ctxloom-bench-server-'));
  let server: BenchServer | undefined;
  try {
    await createWorkspace(root);
    server = await startServer({ root });
    const { url } = server;
    context.log(`one process on files: ${url} (pid ${server.pid}), ${SESSIONS} sessions`);
    const baseline = await server.memory();
    await warmUp([server]);

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
    const load = createLoad([server], 'files');
    const burst = await measured(() => runBounded(SESSIONS, SESSIONS, load.chat));
    context.log(summary('one process, 100 concurrent', burst));
    const total = await measured(() => runBounded(1000, SESSIONS, load.chat));
    context.log(summary('one process, 1000 with 100 in flight', total));
    const memory = await server.memory();
    await server.stop();
    const stored = await countStored({ root, storeSpec: 'files', chats: load.sent });
    context.log(
      `one process: ${stored.acknowledged} acknowledged, lost ${stored.lost}, duplicated ${stored.duplicated}`,
    );
    logErrors(context, [...burst.samples, ...total.samples]);
    return [
      ...metrics('one.burst100', burst, {
        peer: { name: 'no-op 404 route, same burst', value: round(quantile(floor, 0.99)) },
      }),
      ...metrics('one.total1000', total),
      metric('one.lost', stored.lost, 'count', '0'),
      metric('one.duplicated', stored.duplicated, 'count', '0'),
      metric('one.server.rss.baseline', baseline.rssMb, 'MB'),
      metric('one.server.rss.after', memory.rssMb, 'MB'),
      metric('one.server.rss.peak', memory.peakMb, 'MB'),
    ];
  } finally {
    await server?.stop();
    await rm(root, { recursive: true, force: true });
  }
}

/** Two server processes on one PostgreSQL store, in a schema of this run. */
async function runTwoProcessesOnPostgres(context: Pick<BenchContext, 'log'>): Promise<BenchMetric[]> {
  const root = await mkdtemp(join(tmpdir(), 'ctxloom-bench-server-pg-'));
  const schema = `ctxloom_bench_server_${process.pid}_${Date.now().toString(36)}`;
  const storeUrl = new URL(PG_URL);
  storeUrl.searchParams.set('schema', schema);
  const storeSpec = storeUrl.toString();
  let servers: BenchServer[] = [];
  try {
    await createWorkspace(root);
    // Started together, as a deployment would: the first one to set up creates the schema.
    servers = await Promise.all([0, 1].map(() => startServer({ root, store: storeSpec })));
    context.log(
      `two processes on PostgreSQL schema ${schema}: ${servers.map((server) => `${server.url} (pid ${server.pid})`).join(', ')}`,
    );
    await warmUp(servers);
    const load = createLoad(servers, 'pg');
    const burst = await measured(() => runBounded(SESSIONS, SESSIONS, load.chat));
    context.log(summary('two processes, 100 concurrent', burst));
    const total = await measured(() => runBounded(300, SESSIONS, load.chat));
    context.log(summary('two processes, 300 with 100 in flight', total));
    await Promise.all(servers.map((server) => server.stop()));
    const stored = await countStored({ root, storeSpec, chats: load.sent });
    context.log(
      `two processes: ${stored.acknowledged} acknowledged, lost ${stored.lost}, duplicated ${stored.duplicated}`,
    );
    logErrors(context, [...burst.samples, ...total.samples]);
    return [
      ...metrics('two-pg.burst100', burst),
      ...metrics('two-pg.total300', total),
      metric('two-pg.lost', stored.lost, 'count', '0'),
      metric('two-pg.duplicated', stored.duplicated, 'count', '0'),
    ];
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    await dropSchema(schema);
    await rm(root, { recursive: true, force: true });
  }
}

/** Chats of one load: chat `i` goes to session `i mod 100`, on the servers in turn per round. */
function createLoad(servers: readonly BenchServer[], prefix: string) {
  const sent: SentChat[] = [];
  let sequence = 0;
  const chat = async (index: number): Promise<ChatSample> => {
    const number = sequence++;
    const sessionId = sessionIdOf(number % SESSIONS);
    // Rounds shift the server, so with two processes every session gets chats from both.
    const server = servers[(number + Math.floor(number / SESSIONS)) % servers.length] as BenchServer;
    const sample = await sendChat({
      url: server.url,
      token: BENCH_TOKEN,
      sessionId,
      text: QUESTIONS[index % QUESTIONS.length] as string,
      id: `${prefix}-${number}`,
    });
    sent.push({ sessionId, sample });
    return sample;
  };
  return { chat, sent };
}

/** One chat per server, not measured (loads the tokenizer and parse caches); not counted. */
async function warmUp(servers: readonly BenchServer[]): Promise<void> {
  await Promise.all(
    servers.map((server, index) =>
      sendChat({
        url: server.url,
        token: BENCH_TOKEN,
        sessionId: sessionIdOf(index),
        text: QUESTIONS[0] as string,
        id: `warm-${index}`,
      }),
    ),
  );
}

interface Measured {
  samples: ChatSample[];
  seconds: number;
  /** `os.loadavg()[0]` before and after. */
  load: [number, number];
}

async function measured(task: () => Promise<ChatSample[]>): Promise<Measured> {
  const loadBefore = loadavg()[0] as number;
  const begin = performance.now();
  const samples = await task();
  return { samples, seconds: (performance.now() - begin) / 1000, load: [loadBefore, loadavg()[0] as number] };
}

function metrics(prefix: string, run: Measured, extra: Pick<BenchMetric, 'peer'> = {}): BenchMetric[] {
  const of = (pick: (sample: ChatSample) => number) => run.samples.map(pick);
  const errors = run.samples.filter((sample) => sample.error !== undefined).length;
  return [
    metric(
      `${prefix}.headers.p50`,
      quantile(
        of((s) => s.headersMs),
        0.5,
      ),
      'ms',
    ),
    metric(
      `${prefix}.headers.p99`,
      quantile(
        of((s) => s.headersMs),
        0.99,
      ),
      'ms',
    ),
    metric(
      `${prefix}.ttfb.p50`,
      quantile(
        of((s) => s.ttfbMs),
        0.5,
      ),
      'ms',
    ),
    {
      ...metric(
        `${prefix}.ttfb.p99`,
        quantile(
          of((s) => s.ttfbMs),
          0.99,
        ),
        'ms',
        '≤ 200 ms',
      ),
      ...extra,
    },
    metric(
      `${prefix}.report.p99`,
      quantile(
        of((s) => s.reportMs),
        0.99,
      ),
      'ms',
    ),
    metric(
      `${prefix}.stream.p99`,
      quantile(
        of((s) => s.totalMs),
        0.99,
      ),
      'ms',
    ),
    metric(`${prefix}.throughput`, run.samples.length / run.seconds, 'chats/s'),
    metric(`${prefix}.errors`, errors, 'count', '0'),
    metric(`${prefix}.load1.before`, run.load[0], 'loadavg'),
    metric(`${prefix}.load1.after`, run.load[1], 'loadavg'),
  ];
}

function metric(name: string, value: number, unit: string, target?: string): BenchMetric {
  return { name, value: round(value), unit, ...(target === undefined ? {} : { target }) };
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}

function summary(label: string, run: Measured): string {
  const of = (pick: (sample: ChatSample) => number) => run.samples.map(pick);
  const p = (values: number[], q: number) => quantile(values, q).toFixed(1);
  const headers = of((s) => s.headersMs);
  const first = of((s) => s.ttfbMs);
  const errors = run.samples.filter((sample) => sample.error !== undefined).length;
  // Which chats (in sending order) were slowest to their first event: the first few take the
  // free compile slots and answer only after their compile.
  const slowest = first
    .map((ms, index) => ({ ms, index }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 3)
    .map(({ ms, index }) => `#${index} ${ms.toFixed(0)} ms`)
    .join(', ');
  return `${label}: slowest first events ${slowest}; ${label}: headers p50 ${p(headers, 0.5)} / p99 ${p(headers, 0.99)} ms, first event p50 ${p(first, 0.5)} / p99 ${p(first, 0.99)} ms, errors ${errors}, ${(run.samples.length / run.seconds).toFixed(1)} chats/s, load ${run.load[0].toFixed(2)} → ${run.load[1].toFixed(2)}`;
}

function logErrors(context: Pick<BenchContext, 'log'>, samples: readonly ChatSample[]): void {
  for (const sample of samples.filter((s) => s.error !== undefined).slice(0, 3))
    context.log(`error: ${sample.error}`);
}

function sessionIdOf(index: number): string {
  return `s${String(index).padStart(3, '0')}`;
}

/** The notebook example with its session copied into {@link SESSIONS} sessions. */
async function createWorkspace(root: string): Promise<void> {
  const example = join(REPO, 'examples/notebook');
  for (const file of ['profile.md', 'system-prompt.md']) await cp(join(example, file), join(root, file));
  const records = [];
  for (let index = 0; index < SESSIONS; index++) {
    const id = sessionIdOf(index);
    await cp(join(example, 'raft-consensus'), join(root, id), { recursive: true });
    records.push({ id, concept: `bench ${id}`, createdAt: '2026-01-01T00:00:00.000Z' });
  }
  await writeFile(join(root, 'sessions.json'), `${JSON.stringify(records, null, 2)}\n`);
}

async function dropSchema(schema: string): Promise<void> {
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  try {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await admin.end();
  }
}

if (import.meta.main) {
  const result = createBenchResult('server', await run({ log: (message) => console.error(`  ${message}`) }));
  const path = writeBenchResult(result);
  console.log(`${formatBenchResult(result)}\n→ ${path}`);
}
