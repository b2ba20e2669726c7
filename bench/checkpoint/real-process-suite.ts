import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BaseCheckpointSaver, MemorySaver } from '@langchain/langgraph';
import { PostgresSaver as OfficialPostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import pg from 'pg';
import { PostgresSaver, SqliteSaver } from '../../src/runtime/index.ts';
import type { BenchMetric } from '../lib/result.ts';
import { memorySaverBytes } from './memory-saver-size.ts';
import {
  REAL_PROCESSES,
  type RealProcess,
  type RealProcessKind,
  realProcess,
  sequentialReplica,
} from './real-processes.ts';
import { median } from './timed-saver.ts';

/** Turns of the real processes on every saver (`BENCH_REAL_TURNS`, default 1 000). */
const REAL_TURNS = Math.max(200, Number(process.env.BENCH_REAL_TURNS ?? 1_000));
/** Turns of the sequential replica on ctxloom's savers (`BENCH_REPLICA_TURNS`, default 5 000). */
const REPLICA_TURNS = Math.max(REAL_TURNS, Number(process.env.BENCH_REPLICA_TURNS ?? 5_000));
/** Turns of the peers (`BENCH_PEER_TURNS`, default 1 000; they slow down with the square of the thread). */
const PEER_TURNS = Math.max(200, Math.min(REAL_TURNS, Number(process.env.BENCH_PEER_TURNS ?? 1_000)));
/**
 * Runs to do (`BENCH_REAL_SELECT`, comma-separated `<process>.<saver>` or `replica.<saver>`,
 * e.g. `sequential.ctxloom-sqlite,replica.ctxloom-postgres`); default all.
 */
const SELECT = process.env.BENCH_REAL_SELECT?.split(',').map((entry) => entry.trim());
const selected = (name: string) => SELECT === undefined || SELECT.includes(name);
const MARKS = [200, 1_000, 5_000];

/** One saver for one run: how to measure it, how to open a fresh (cold) instance on the same data, how to end it. */
interface SaverUnderTest {
  saver: BaseCheckpointSaver;
  size(): Promise<number>;
  /** A new saver instance on the same storage: no process-local cache (undefined for MemorySaver: the same one). */
  reopen?(): Promise<{ saver: BaseCheckpointSaver; close(): Promise<void> }>;
  close(): Promise<void>;
}

type SaverKind = 'ctxloom-sqlite' | 'memory' | 'ctxloom-postgres' | 'official-postgres';

interface RunResult {
  bytes: Map<number, number>;
  raw: Map<number, number>;
  turnFirstMs: number;
  turn200Ms: number;
  loadMs: number;
  loadedMessages: number;
}

/**
 * Drives `make(saver)` for `turns` turns: bytes at each mark, the whole `submitInput` time of
 * turns 1–10 and 191–200 (medians), and at the end a cold `getState` on a fresh saver
 * instance (median of 3).
 */
async function drive(
  opened: SaverUnderTest,
  make: (saver: BaseCheckpointSaver) => RealProcess,
  texts: readonly string[],
  turns: number,
  log: (message: string) => void,
): Promise<RunResult> {
  const run = make(opened.saver);
  const bytes = new Map<number, number>();
  const raw = new Map<number, number>();
  const early: number[] = [];
  const late: number[] = [];
  let rawBytes = 0;
  const started = performance.now();
  for (let turn = 0; turn < turns; turn += 1) {
    const start = performance.now();
    await run.turn(turn);
    const ms = performance.now() - start;
    if (turn < 10) early.push(ms);
    else if (turn >= 190 && turn < 200) late.push(ms);
    rawBytes += Buffer.byteLength(texts[turn * 2] ?? '') + Buffer.byteLength(texts[turn * 2 + 1] ?? '');
    if (MARKS.includes(turn + 1)) {
      bytes.set(turn + 1, await opened.size());
      raw.set(turn + 1, rawBytes);
      log(
        `  turn ${turn + 1}: ${(bytes.get(turn + 1) ?? 0) / rawBytes}× raw (${Math.round((performance.now() - started) / 1000)} s)`,
      );
    }
  }
  const loads: number[] = [];
  let loadedMessages = 0;
  for (let round = 0; round < 3; round += 1) {
    const fresh = opened.reopen === undefined ? undefined : await opened.reopen();
    const cold = make(fresh?.saver ?? opened.saver);
    const start = performance.now();
    loadedMessages = await cold.load();
    loads.push(performance.now() - start);
    await fresh?.close();
  }
  return {
    bytes,
    raw,
    turnFirstMs: median(early),
    turn200Ms: median(late),
    loadMs: median(loads),
    loadedMessages,
  };
}

/**
 * Real processes (`createSequentialProcess`, `createDynamicProcess` with the compression
 * stage) through `submitInput` on every saver up to {@link REAL_TURNS}, and the sequential
 * replica on ctxloom's savers up to {@link REPLICA_TURNS}.
 */
export async function runRealProcesses(options: {
  texts: readonly string[];
  log: (message: string) => void;
}): Promise<{ metrics: BenchMetric[]; notes: string[] }> {
  const { texts, log } = options;
  const url = process.env.CTXLOOM_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  const suffix = `${process.pid}_${Date.now().toString(36)}`;
  const schemas: string[] = [];
  const files: string[] = [];
  let counter = 0;
  const open = async (kind: SaverKind): Promise<SaverUnderTest> => {
    counter += 1;
    if (kind === 'ctxloom-sqlite') {
      const path = join(tmpdir(), `ctxloom-bench-real-${suffix}-${counter}.db`);
      files.push(path);
      const saver = new SqliteSaver({ path, durability: 'normal' });
      await saver.setup();
      return {
        saver,
        size: () => saver.sizeBytes(),
        reopen: async () => {
          const fresh = new SqliteSaver({ path, durability: 'normal' });
          return { saver: fresh, close: () => fresh.close() };
        },
        close: () => saver.close(),
      };
    }
    if (kind === 'memory') {
      const saver = new MemorySaver();
      return { saver, size: async () => memorySaverBytes(saver), close: async () => {} };
    }
    const schema = `${kind.replace('-', '_')}_${suffix}_${counter}`;
    schemas.push(schema);
    if (kind === 'ctxloom-postgres') {
      const saver = new PostgresSaver({ pool, schema });
      await saver.setup();
      return {
        saver,
        size: () => schemaBytes(pool, schema),
        reopen: async () => {
          const fresh = new PostgresSaver({ pool, schema });
          return { saver: fresh, close: () => fresh.close() };
        },
        close: () => saver.close(),
      };
    }
    const saver = OfficialPostgresSaver.fromConnString(url, { schema });
    await saver.setup();
    return {
      saver,
      size: () => schemaBytes(pool, schema),
      reopen: async () => {
        const fresh = OfficialPostgresSaver.fromConnString(url, { schema });
        return { saver: fresh, close: () => fresh.end() };
      },
      close: () => saver.end(),
    };
  };
  const metrics: BenchMetric[] = [];
  const notes: string[] = [];
  const outcome = async (
    label: string,
    kind: SaverKind,
    make: (saver: BaseCheckpointSaver) => RealProcess,
    turns: number,
  ) => {
    log(`${label} on ${kind}, ${turns} turns`);
    const opened = await open(kind);
    try {
      return await drive(opened, make, texts, turns, log);
    } finally {
      await opened.close();
    }
  };
  try {
    for (const processKind of REAL_PROCESSES) {
      const make = (saver: BaseCheckpointSaver) =>
        realProcess({ kind: processKind, saver, texts, thread: `bench-${processKind}` });
      for (const [ours, peer, peerName] of [
        ['ctxloom-sqlite', 'memory', 'LangGraph MemorySaver (serialised)'],
        ['ctxloom-postgres', 'official-postgres', 'official PostgresSaver'],
      ] as const) {
        const mine = selected(`${processKind}.${ours}`)
          ? await outcome(processKind, ours, make, REAL_TURNS)
          : undefined;
        const theirs = selected(`${processKind}.${peer}`)
          ? await outcome(processKind, peer, make, PEER_TURNS)
          : undefined;
        if (mine !== undefined) {
          metrics.push(
            ...compare(
              `real.${processKind}.${ours}`,
              mine,
              theirs === undefined ? undefined : { name: peerName, result: theirs },
            ),
          );
        } else if (theirs !== undefined) {
          metrics.push(...compare(`real.${processKind}.${peer}`, theirs, undefined));
        }
      }
    }
    for (const ours of ['ctxloom-sqlite', 'ctxloom-postgres'] as const) {
      if (!selected(`replica.${ours}`)) continue;
      const replica = await outcome(
        'sequential replica',
        ours,
        (saver) => sequentialReplica({ saver, texts, thread: 'bench-replica' }),
        REPLICA_TURNS,
      );
      metrics.push(...compare(`replica.sequential.${ours}`, replica, undefined));
    }
    notes.push(
      `real processes: createSequentialProcess (one agent) and createDynamicProcess (compression Blackboard, compression compact stage, 6 000-token window), driven through submitInput (thread lease held per turn) for ${REAL_TURNS} turns on ctxloom's savers and ${PEER_TURNS} on the peers; the model is ai/test's MockLanguageModelV4 replying with the next LoCoMo message (500 characters each way)`,
      `sequential replica: the same Blackboard, node name, submitInput entry and node patch as the real sequential agent node, without compiling the model input from the history (CPU, not storage); run to ${REPLICA_TURNS} turns on ctxloom's savers only — its bytes at 200 and 1 000 turns stand beside the real process's`,
      'SQLite durability normal (WAL, synchronous=NORMAL) in these runs; bytes are pages in use; PostgreSQL bytes are every relation of the saver schema',
      'LoCoMo has ~514 000 characters (~514 turns of 2 × 500): later turns start over from its beginning, beyond the 24 KiB chain dictionary and DEFLATE window',
      'load: graph.getState on a fresh saver instance (no process cache) over the same storage after the last turn, median of 3; MemorySaver reuses its instance. The official SqliteSaver (@langchain/langgraph-checkpoint-sqlite) is not installed here: it needs better-sqlite3, a native addon (not allowed, and its build downloads from GitHub); MemorySaver — the same JsonPlusSerializer blobs without SQL I/O — stands in as the SQLite-side peer, a lower bound of the official SqliteSaver load',
      'turn latency: the whole submitInput turn (lease, getState, invoke with its puts and writes), median of turns 1–10 and of turns 191–200 on the same thread, same process',
    );
  } finally {
    for (const schema of schemas) await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
    for (const path of files)
      for (const end of ['', '-wal', '-shm']) rmSync(`${path}${end}`, { force: true });
  }
  return { metrics, notes };
}

function compare(
  prefix: string,
  mine: RunResult,
  peer: { name: string; result: RunResult } | undefined,
): BenchMetric[] {
  const metrics: BenchMetric[] = [];
  for (const [turn, bytes] of mine.bytes) {
    const raw = mine.raw.get(turn) ?? 1;
    const theirs = peer?.result.bytes.get(turn);
    metrics.push({
      name: `${prefix}.stored-over-raw.turn-${turn}`,
      value: round(bytes / raw),
      unit: 'x',
      ...(peer === undefined || theirs === undefined
        ? {}
        : { peer: { name: peer.name, value: round(theirs / (peer.result.raw.get(turn) ?? 1)) } }),
      target: '≤ 2',
      better: 'lower',
    });
  }
  metrics.push(
    {
      name: `${prefix}.turn-latency.turn200-over-turn1`,
      value: round(mine.turn200Ms / mine.turnFirstMs),
      unit: 'x',
      ...(peer === undefined
        ? {}
        : { peer: { name: peer.name, value: round(peer.result.turn200Ms / peer.result.turnFirstMs) } }),
      target: '≤ 2',
      better: 'lower',
    },
    { name: `${prefix}.turn-latency.turn1`, value: round(mine.turnFirstMs), unit: 'ms' },
    { name: `${prefix}.turn-latency.turn200`, value: round(mine.turn200Ms), unit: 'ms' },
    {
      name: `${prefix}.cold-load.last-turn`,
      value: round(mine.loadMs),
      unit: 'ms',
      ...(peer === undefined ? {} : { peer: { name: peer.name, value: round(peer.result.loadMs) } }),
      target: peer === undefined ? 'context' : '≤ peer at 1 000 turns',
      better: 'lower',
    },
    { name: `${prefix}.cold-load.messages`, value: mine.loadedMessages, unit: 'messages' },
  );
  return metrics;
}

/** Bytes of every relation in `schema`: tables with all forks, indexes and TOAST, and sequences. */
async function schemaBytes(pool: pg.Pool, schema: string): Promise<number> {
  const rows = await pool.query(
    `SELECT coalesce(sum(CASE WHEN c.relkind = 'r' THEN pg_total_relation_size(c.oid) ELSE pg_relation_size(c.oid) END), 0) AS size
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relkind IN ('r', 'S')`,
    [schema],
  );
  return Number(rows.rows[0]?.size ?? 0);
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
