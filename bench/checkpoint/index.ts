/**
 * Suite `checkpoint` (issue 4): 200 turns of 500-character messages (real LoCoMo dialogue
 * text) on a two-node graph, same run, same graph for every saver:
 * - ctxloom SqliteSaver vs LangGraph's MemorySaver (serialised bytes);
 * - ctxloom PostgresSaver vs the official @langchain/langgraph-checkpoint-postgres, each in
 *   a fresh schema of the same database (relation bytes incl. indexes and TOAST);
 * - for scale: LangGraph's standard `MessagesValue` graph on MemorySaver (full history at
 *   every step).
 * Reported: bytes after 200 turns, bytes per turn, stored/raw ratio, put latency turns
 * 191–200 over turns 1–10 (medians), getTuple and full resume (getState) at turn 200.
 * Run: `npm run bench -- checkpoint` (or `node --conditions=ctxloom-source bench/checkpoint/index.ts`).
 */
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BaseCheckpointSaver, MemorySaver } from '@langchain/langgraph';
import { PostgresSaver as OfficialPostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import pg from 'pg';
import { PostgresSaver, SqliteSaver } from '../../src/runtime/index.ts';
import type { BenchContext } from '../lib/context.ts';
import type { BenchMetric } from '../lib/result.ts';
import { type BenchGraph, blackboardChat, standardChat } from './chat-bench-graph.ts';
import { loadLocomoMessages } from './locomo-messages.ts';
import { memorySaverBytes } from './memory-saver-size.ts';
import { median, putLatency, timePuts } from './timed-saver.ts';

const TURNS = 200;
const CHARS = 500;

interface RunOutcome {
  bytes: number;
  putRatio: number;
  putFirstMs: number;
  putLastMs: number;
  getTupleMs: number;
  resumeMs: number;
  messages: number;
}

async function drive(
  saver: BaseCheckpointSaver,
  graph: BenchGraph,
  size: () => Promise<number>,
  log: (message: string) => void,
): Promise<RunOutcome> {
  const timer = timePuts(saver);
  for (let turn = 0; turn < TURNS; turn += 1) {
    timer.setTurn(turn);
    await graph.turn(turn);
    if ((turn + 1) % 50 === 0) log(`  turn ${turn + 1}`);
  }
  const getTuple: number[] = [];
  const resume: number[] = [];
  let messages = 0;
  for (let round = 0; round < 11; round += 1) {
    let start = performance.now();
    await saver.getTuple(graph.config);
    if (round > 0) getTuple.push(performance.now() - start);
    start = performance.now();
    messages = (await graph.resume()).length;
    if (round > 0) resume.push(performance.now() - start);
  }
  const putFirstMs = putLatency(timer.samples, 0, 9);
  const putLastMs = putLatency(timer.samples, TURNS - 10, TURNS - 1);
  return {
    bytes: await size(),
    putRatio: putLastMs / putFirstMs,
    putFirstMs,
    putLastMs,
    getTupleMs: median(getTuple),
    resumeMs: median(resume),
    messages,
  };
}

/** Runs the suite; the shared runner writes `bench/results/checkpoint.json`. */
export async function run(context: BenchContext): Promise<{ metrics: BenchMetric[]; notes: string[] }> {
  const texts = await loadLocomoMessages({ count: TURNS * 2, charsPerMessage: CHARS });
  const rawBytes = texts.reduce((sum, text) => sum + Buffer.byteLength(text), 0);
  context.log(`${TURNS} turns, ${texts.length} messages, ${rawBytes} raw message bytes`);
  const metrics: BenchMetric[] = [];
  const databasePath = join(tmpdir(), `ctxloom-bench-${process.pid}.db`);
  const removeDatabase = () => {
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${databasePath}${suffix}`, { force: true });
  };
  removeDatabase();

  // SQLite vs MemorySaver.
  const sqlite = new SqliteSaver({ path: databasePath });
  context.log('ctxloom SqliteSaver');
  const ours = await drive(
    sqlite,
    blackboardChat({ saver: sqlite, texts, thread: 'bench' }),
    () => sqlite.sizeBytes(),
    context.log,
  );
  await sqlite.close();
  removeDatabase();
  const memory = new MemorySaver();
  context.log('LangGraph MemorySaver');
  const peer = await drive(
    memory,
    blackboardChat({ saver: memory, texts, thread: 'bench' }),
    async () => memorySaverBytes(memory),
    context.log,
  );
  const standardMemory = new MemorySaver();
  context.log('LangGraph MemorySaver, standard MessagesValue graph');
  const standard = await drive(
    standardMemory,
    standardChat({ saver: standardMemory, texts, thread: 'bench' }),
    async () => memorySaverBytes(standardMemory),
    context.log,
  );
  metrics.push(
    ...comparison('sqlite', ours, { name: 'LangGraph MemorySaver (serialised)', outcome: peer }, rawBytes),
    {
      name: 'standard-messages.memory-saver.bytes-after-200-turns',
      value: standard.bytes,
      unit: 'B',
      target: 'context: LangGraph MessagesValue stores the whole history at every step',
    },
  );

  // PostgreSQL: ctxloom vs the official saver, same database, fresh schemas.
  const url = process.env.CTXLOOM_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  const suffix = `${process.pid}_${Date.now().toString(36)}`;
  const ourSchema = `ctxloom_bench_${suffix}`;
  const officialSchema = `official_bench_${suffix}`;
  try {
    const postgres = new PostgresSaver({ pool, schema: ourSchema });
    context.log('ctxloom PostgresSaver');
    const ourPg = await drive(
      postgres,
      blackboardChat({ saver: postgres, texts, thread: 'bench' }),
      () => postgres.sizeBytes(),
      context.log,
    );
    const official = OfficialPostgresSaver.fromConnString(url, { schema: officialSchema });
    await official.setup();
    context.log('official PostgresSaver');
    const officialOutcome = await drive(
      official,
      blackboardChat({ saver: official, texts, thread: 'bench' }),
      () => relationBytes(pool, officialSchema),
      context.log,
    );
    await official.end();
    metrics.push(
      ...comparison(
        'postgres',
        ourPg,
        { name: 'official PostgresSaver', outcome: officialOutcome },
        rawBytes,
      ),
    );
  } finally {
    await pool.query(`DROP SCHEMA IF EXISTS "${ourSchema}" CASCADE`);
    await pool.query(`DROP SCHEMA IF EXISTS "${officialSchema}" CASCADE`);
    await pool.end();
  }
  return {
    metrics,
    notes: [
      `raw message bytes: ${rawBytes} (${texts.length} LoCoMo messages × ${CHARS} characters)`,
      'graph: ctxloom Blackboard (messages as a LangGraph delta channel), assistant → bookkeeping; the same graph for every saver',
      'SqliteSaver durability: full (WAL, synchronous=FULL); put latency includes the fsync',
      'put latency ratio: median put of turns 191–200 over median put of turns 1–10',
    ],
  };
}

function comparison(
  prefix: string,
  ours: RunOutcome,
  peer: { name: string; outcome: RunOutcome },
  rawBytes: number,
): BenchMetric[] {
  const against = (value: number) => ({ name: peer.name, value });
  return [
    {
      name: `${prefix}.bytes-after-200-turns`,
      value: ours.bytes,
      unit: 'B',
      peer: against(peer.outcome.bytes),
      target: `≤ ${2 * rawBytes} (2× raw message bytes)`,
    },
    {
      name: `${prefix}.bytes-per-turn`,
      value: Math.round(ours.bytes / TURNS),
      unit: 'B',
      peer: against(Math.round(peer.outcome.bytes / TURNS)),
    },
    {
      name: `${prefix}.stored-over-raw`,
      value: round(ours.bytes / rawBytes),
      unit: 'x',
      peer: against(round(peer.outcome.bytes / rawBytes)),
      target: '≤ 2',
      better: 'lower',
    },
    {
      name: `${prefix}.put-latency.turn200-over-turn1`,
      value: round(ours.putRatio),
      unit: 'x',
      peer: against(round(peer.outcome.putRatio)),
      target: '≤ 1.5',
      better: 'lower',
    },
    {
      name: `${prefix}.put-latency.turn1`,
      value: round(ours.putFirstMs),
      unit: 'ms',
      peer: against(round(peer.outcome.putFirstMs)),
    },
    {
      name: `${prefix}.put-latency.turn200`,
      value: round(ours.putLastMs),
      unit: 'ms',
      peer: against(round(peer.outcome.putLastMs)),
    },
    {
      name: `${prefix}.get-tuple-at-turn-200`,
      value: round(ours.getTupleMs),
      unit: 'ms',
      peer: against(round(peer.outcome.getTupleMs)),
      target: '< 20 ms',
    },
    {
      name: `${prefix}.resume-get-state-at-turn-200`,
      value: round(ours.resumeMs),
      unit: 'ms',
      peer: against(round(peer.outcome.resumeMs)),
    },
  ];
}

async function relationBytes(pool: pg.Pool, schema: string): Promise<number> {
  const rows = await pool.query(
    `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) AS size FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r' AND c.relname <> 'checkpoint_migrations'`,
    [schema],
  );
  return Number(rows.rows[0]?.size ?? 0);
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

// Runnable directly: `node --conditions=ctxloom-source bench/checkpoint/index.ts`.
if (import.meta.main) {
  const { createBenchResult, formatBenchResult, writeBenchResult } = await import('../lib/index.ts');
  const output = await run({ log: (message) => console.error(message), runs: 5 });
  const result = { notes: output.notes, ...createBenchResult('checkpoint', output.metrics) };
  console.log(`${formatBenchResult(result)}\n→ ${writeBenchResult(result)}`);
}
