/**
 * Suite `checkpoint` (issue 4): 200 turns of 500-character messages (real LoCoMo dialogue
 * text) on a two-node graph, same run, same graph for every saver:
 * - ctxloom SqliteSaver vs LangGraph's MemorySaver (serialised bytes);
 * - ctxloom PostgresSaver vs the official @langchain/langgraph-checkpoint-postgres, each in
 *   a fresh schema of the same database (relation bytes incl. indexes and TOAST);
 * - for scale: LangGraph's standard `MessagesValue` graph on MemorySaver (full history at
 *   every step).
 * Reported: bytes after 200 turns, bytes per turn, stored/raw ratio, the empty tables' size,
 * what the turns added over raw and what turns 101–200 added over theirs, getTuple and full resume
 * (getState) at turn 200 — from one thread of 200 turns — and put latency turns 191–200 over
 * turns 1–10 from a separate run on a fresh saver where the late turns of
 * {@link LATENCY_THREADS} threads alternate with the first turns of as many fresh threads
 * (median of every put of those turns, so load on the shared machine hits both ends alike).
 * Run: `npm run bench -- checkpoint` (or `npx node --conditions=ctxloom-source bench/checkpoint/index.ts`).
 */
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { type BaseCheckpointSaver, MemorySaver } from '@langchain/langgraph';
import { PostgresSaver as OfficialPostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import pg from 'pg';
import { CHAIN_VALUES_BYTES } from '../../src/runtime/checkpoint/chain-text.ts';
import { PostgresSaver, SqliteSaver } from '../../src/runtime/index.ts';
import type { BenchContext } from '../lib/context.ts';
import type { BenchMetric } from '../lib/result.ts';
import { type BenchGraph, blackboardChat, standardChat } from './chat-bench-graph.ts';
import { loadLocomoMessages } from './locomo-messages.ts';
import { memorySaverBytes } from './memory-saver-size.ts';
import { postgresBreakdown, schemaBytes } from './postgres-bytes.ts';
import { MAX_TURNS, runRealProcesses } from './real-process-suite.ts';
import { median, putLatency, timePuts } from './timed-saver.ts';

const TURNS = 200;
const CHARS = 500;
/** Threads interleaved in the latency run (`BENCH_LATENCY_THREADS`, default 3). */
const LATENCY_THREADS = Math.max(1, Number(process.env.BENCH_LATENCY_THREADS ?? 3));

interface RunOutcome {
  bytes: number;
  /** Bytes right after setup, before the first turn: what the saver's empty tables occupy. */
  bytesEmpty: number;
  /** Bytes after turn {@link TURNS}/2: the second half's growth is the marginal cost of a turn. */
  bytesAtHalf: number;
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
): Promise<Omit<RunOutcome, 'putRatio' | 'putFirstMs' | 'putLastMs'>> {
  const bytesEmpty = await size();
  let bytesAtHalf = 0;
  for (let turn = 0; turn < TURNS; turn += 1) {
    await graph.turn(turn);
    if (turn + 1 === TURNS / 2) bytesAtHalf = await size();
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
  return {
    bytes: await size(),
    bytesEmpty,
    bytesAtHalf,
    getTupleMs: median(getTuple),
    resumeMs: median(resume),
    messages,
  };
}

/**
 * Put latency on a fresh saver, early and late turns measured in the same moments:
 * {@link LATENCY_THREADS} "late" threads first take turns 1–190 untimed (round-robin); then,
 * in one window, each late thread's turns 191–200 alternate with turns 1–10 of as many fresh
 * threads. Every put in the window is timed and tagged with its turn. Returns the median put
 * of turns 1–10 and of turns 191–200 over all threads, and their ratio: load on the shared
 * machine, the database's state and the JIT are the same for both ends, so only what a
 * thread's history costs shows.
 */
async function putLatencyRun(
  saver: BaseCheckpointSaver,
  graphOf: (thread: string) => BenchGraph,
  log: (message: string) => void,
): Promise<Pick<RunOutcome, 'putRatio' | 'putFirstMs' | 'putLastMs'>> {
  const late = Array.from({ length: LATENCY_THREADS }, (_, index) => graphOf(`late-${index}`));
  const early = Array.from({ length: LATENCY_THREADS }, (_, index) => graphOf(`early-${index}`));
  const window = 10;
  for (let turn = 0; turn < TURNS - window; turn += 1) {
    for (const graph of late) await graph.turn(turn);
    if ((turn + 1) % 50 === 0) log(`  latency run: ${LATENCY_THREADS} threads at turn ${turn + 1}`);
  }
  const timer = timePuts(saver);
  for (let step = 0; step < window; step += 1) {
    for (const [index, graph] of late.entries()) {
      timer.setTurn(step);
      await early[index]?.turn(step);
      timer.setTurn(TURNS - window + step);
      await graph.turn(TURNS - window + step);
    }
  }
  const putFirstMs = putLatency(timer.samples, 0, window - 1);
  const putLastMs = putLatency(timer.samples, TURNS - window, TURNS - 1);
  return { putRatio: putLastMs / putFirstMs, putFirstMs, putLastMs };
}

/** A saver opened for one run, with how to measure and close it. */
interface OpenedSaver {
  saver: BaseCheckpointSaver;
  size: () => Promise<number>;
  close: () => Promise<void>;
}

/**
 * One saver kind end to end: the 200-turn size run on a saver from `open('size')`, then the
 * put-latency run on a fresh one from `open('latency')`; each is closed after its run.
 */
async function measureSaver(
  label: string,
  texts: readonly string[],
  log: (message: string) => void,
  open: (role: 'size' | 'latency') => Promise<OpenedSaver>,
): Promise<RunOutcome> {
  log(label);
  const sized = await open('size');
  const size = await drive(
    sized.saver,
    blackboardChat({ saver: sized.saver, texts, thread: 'bench' }),
    sized.size,
    log,
  );
  await sized.close();
  const timed = await open('latency');
  const latency = await putLatencyRun(
    timed.saver,
    (thread) => blackboardChat({ saver: timed.saver, texts, thread }),
    log,
  );
  await timed.close();
  return { ...size, ...latency };
}

/** Runs the suite; the shared runner writes `bench/results/checkpoint.json`. */
export async function run(context: BenchContext): Promise<{ metrics: BenchMetric[]; notes: string[] }> {
  const locomoPath = process.env.CTXLOOM_LOCOMO_PATH;
  const real = await runRealProcesses({
    texts: await loadLocomoMessages({
      count: 2 * MAX_TURNS,
      charsPerMessage: CHARS,
      cycle: true,
      ...(locomoPath === undefined ? {} : { path: locomoPath }),
    }),
    log: context.log,
  });
  if (process.env.BENCH_CHECKPOINT_GRAPH !== '1') {
    return {
      metrics: real.metrics,
      notes: [
        ...real.notes,
        'the two-node bench graph of earlier runs (200 turns, put-latency windows) runs with BENCH_CHECKPOINT_GRAPH=1',
      ],
    };
  }
  const texts = await loadLocomoMessages({
    count: TURNS * 2,
    charsPerMessage: CHARS,
    ...(locomoPath === undefined ? {} : { path: locomoPath }),
  });
  const rawBytes = texts.reduce((sum, text) => sum + Buffer.byteLength(text), 0);
  // Turns TURNS/2 + 1 … TURNS (their user and assistant messages).
  const secondHalfRawBytes = texts.slice(TURNS).reduce((sum, text) => sum + Buffer.byteLength(text), 0);
  context.log(`${TURNS} turns, ${texts.length} messages, ${rawBytes} raw message bytes`);
  const metrics: BenchMetric[] = [];
  const databasePath = join(tmpdir(), `ctxloom-bench-${process.pid}.db`);
  const removeDatabase = () => {
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${databasePath}${suffix}`, { force: true });
  };
  removeDatabase();

  // SQLite vs MemorySaver.
  const ours = await measureSaver('ctxloom SqliteSaver', texts, context.log, async () => {
    removeDatabase();
    const saver = new SqliteSaver({ path: databasePath });
    await saver.setup();
    return {
      saver,
      size: () => saver.sizeBytes(),
      close: async () => {
        await saver.close();
        removeDatabase();
      },
    };
  });
  const peer = await measureSaver('LangGraph MemorySaver', texts, context.log, async () => {
    const saver = new MemorySaver();
    return { saver, size: async () => memorySaverBytes(saver), close: async () => {} };
  });
  const standardMemory = new MemorySaver();
  context.log('LangGraph MemorySaver, standard MessagesValue graph');
  const standard = await drive(
    standardMemory,
    standardChat({ saver: standardMemory, texts, thread: 'bench' }),
    async () => memorySaverBytes(standardMemory),
    context.log,
  );
  metrics.push(
    ...comparison(
      'sqlite',
      ours,
      { name: 'LangGraph MemorySaver (serialised)', outcome: peer },
      rawBytes,
      secondHalfRawBytes,
    ),
    {
      name: 'standard-messages.memory-saver.bytes-after-200-turns',
      value: standard.bytes,
      unit: 'B',
      target: 'context: LangGraph MessagesValue stores the whole history at every step',
    },
  );

  // PostgreSQL: ctxloom vs the official saver, same database, a fresh schema per saver.
  const url = process.env.CTXLOOM_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  const suffix = `${process.pid}_${Date.now().toString(36)}`;
  const schemas: string[] = [];
  /** Where ctxloom's PostgreSQL bytes went after the 200-turn size run. */
  const breakdown: string[] = [];
  const schemaFor = (name: string) => {
    const schema = `${name}_${suffix}`;
    schemas.push(schema);
    return schema;
  };
  try {
    const ourPg = await measureSaver('ctxloom PostgresSaver', texts, context.log, async (role) => {
      const schema = schemaFor(`ctxloom_${role}`);
      const saver = new PostgresSaver({ pool, schema });
      await saver.setup(); // tables are created on first use; the empty size is measured after it
      return {
        saver,
        size: () => schemaBytes(pool, schema),
        close: async () => {
          if (role === 'size') breakdown.push(...(await postgresBreakdown(pool, schema)));
          // The saver's own count must agree with the schema total the benchmark reports.
          const own = await saver.sizeBytes();
          const total = await schemaBytes(pool, schema);
          if (own !== total)
            context.log(`  note: PostgresSaver.sizeBytes() ${own} B, schema total ${total} B`);
          await saver.close(); // the pool is shared: closing leaves it open
        },
      };
    });
    const officialOutcome = await measureSaver('official PostgresSaver', texts, context.log, async (role) => {
      const schema = schemaFor(`official_${role}`);
      const saver = OfficialPostgresSaver.fromConnString(url, { schema });
      await saver.setup();
      return { saver, size: () => schemaBytes(pool, schema), close: () => saver.end() };
    });
    metrics.push(
      ...comparison(
        'postgres',
        ourPg,
        { name: 'official PostgresSaver', outcome: officialOutcome },
        rawBytes,
        secondHalfRawBytes,
      ),
    );
  } finally {
    for (const schema of schemas) await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  }
  return {
    metrics: [...real.metrics, ...metrics],
    notes: [
      ...real.notes,
      `raw message bytes: ${rawBytes} (${texts.length} LoCoMo messages × ${CHARS} characters)`,
      'graph: ctxloom Blackboard (messages as a LangGraph delta channel), assistant → bookkeeping; the same graph for every saver',
      'SqliteSaver durability: full (WAL, synchronous=FULL); put latency includes the fsync',
      `put latency ratio: median put of turns 191–200 over median put of turns 1–10 on a fresh saver; turns 191–200 of ${LATENCY_THREADS} threads alternate with turns 1–10 of ${LATENCY_THREADS} fresh threads in the same window (${LATENCY_THREADS * 10 * 4} puts per side)`,
      "PostgreSQL bytes: every relation in the saver's schema — tables with all forks (main, free-space map, visibility map), indexes, TOAST, sequences (the official saver's migrations table included)",
      `message text alone, each message raw-DEFLATEd (level 6) against the ${CHAIN_VALUES_BYTES} bytes of text before it: ${textAgainstHistoryBytes(texts)} B — what storing only the words would cost`,
      ...breakdown.map((line) => `ctxloom PostgresSaver after ${TURNS} turns: ${line}`),
    ],
  };
}

function comparison(
  prefix: string,
  ours: RunOutcome,
  peer: { name: string; outcome: RunOutcome },
  rawBytes: number,
  secondHalfRawBytes: number,
): BenchMetric[] {
  const against = (value: number) => ({ name: peer.name, value });
  const marginal = (outcome: RunOutcome) => round((outcome.bytes - outcome.bytesAtHalf) / secondHalfRawBytes);
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
      name: `${prefix}.marginal-stored-over-raw.turns-101-200`,
      value: marginal(ours),
      unit: 'x',
      peer: against(marginal(peer.outcome)),
      target:
        'context: growth per turn (bytes added by turns 101–200 over their raw bytes), without the fixed cost of empty tables',
      better: 'lower',
    },
    {
      name: `${prefix}.added-over-raw`,
      value: round((ours.bytes - ours.bytesEmpty) / rawBytes),
      unit: 'x',
      peer: against(round((peer.outcome.bytes - peer.outcome.bytesEmpty) / rawBytes)),
      target: 'context: bytes the 200 turns added to the empty tables, over the raw message bytes',
      better: 'lower',
    },
    {
      name: `${prefix}.bytes-empty`,
      value: ours.bytesEmpty,
      unit: 'B',
      peer: against(peer.outcome.bytesEmpty),
      target: 'context: the empty tables, indexes and sequences right after setup',
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

/** Bytes of `texts` when each is raw-DEFLATEd against the text before it (last {@link CHAIN_VALUES_BYTES}). */
function textAgainstHistoryBytes(texts: readonly string[]): number {
  let history = Buffer.alloc(0);
  let total = 0;
  for (const text of texts) {
    const bytes = Buffer.from(text);
    const dictionary = history.subarray(Math.max(0, history.byteLength - CHAIN_VALUES_BYTES));
    total += deflateRawSync(bytes, dictionary.byteLength > 0 ? { dictionary } : {}).byteLength;
    history = Buffer.concat([history, bytes]);
  }
  return total;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

// Runnable directly: `npx node --conditions=ctxloom-source bench/checkpoint/index.ts`.
if (import.meta.main) {
  const { createBenchResult, formatBenchResult, writeBenchResult } = await import('../lib/index.ts');
  const output = await run({ log: (message) => console.error(message), runs: 5 });
  const result = { notes: output.notes, ...createBenchResult('checkpoint', output.metrics) };
  console.log(`${formatBenchResult(result)}\n→ ${writeBenchResult(result)}`);
}
