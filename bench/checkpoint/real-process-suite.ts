import { copyFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BaseCheckpointSaver } from '@langchain/langgraph';
import { PostgresSaver as OfficialPostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { SqliteSaver as OfficialSqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import Database from 'better-sqlite3';
import pg from 'pg';
import { PostgresSaver, type SnapshotStorage, SqliteSaver } from '../../src/runtime/index.ts';
import type { BenchMetric } from '../lib/result.ts';
import { postgresBreakdown, schemaBytes } from './postgres-bytes.ts';
import { REAL_PROCESSES, type RealProcess, realProcess } from './real-processes.ts';
import { median } from './timed-saver.ts';

/**
 * Turn counts at which bytes and the cold load are measured (`BENCH_CHECKPOINT_TURNS`,
 * comma-separated; default the 200, 1 000 and 5 000). ctxloom's savers run to the
 * largest; the official savers only to marks ≤ {@link PEER_MAX_TURNS} (the PostgresSaver ≤
 * {@link OFFICIAL_POSTGRES_MAX_TURNS}).
 */
export const MARKS = (process.env.BENCH_CHECKPOINT_TURNS ?? '200,1000,5000')
  .split(',')
  .map((entry) => Number(entry.trim()))
  .filter((turns) => Number.isSafeInteger(turns) && turns > 0)
  .sort((a, b) => a - b);
/** The official savers store every checkpoint's channel values whole: they grow with the square of the thread. */
const PEER_MAX_TURNS = 1_000;
/**
 * The official PostgresSaver rebuilds a delta channel with one `getTuple` query per ancestor
 * back to its last snapshot, each reading whole channel values: on the 2-core bench machine
 * the dynamic process took 10 min to 200 turns and 32 min to ~312, at ~4 turns a minute
 * there (2026-11-28) — hours to 1 000. It runs to marks ≤ this (`BENCH_OFFICIAL_POSTGRES_TURNS`;
 * default 200).
 */
const OFFICIAL_POSTGRES_MAX_TURNS = Number(process.env.BENCH_OFFICIAL_POSTGRES_TURNS ?? 200);
/** Turns the whole run needs texts for. */
export const MAX_TURNS = Math.max(...MARKS);
/**
 * Runs to do (`BENCH_REAL_SELECT`, comma-separated `<process>.<saver>`, e.g.
 * `dynamic.ctxloom-sqlite,dynamic.official-sqlite`); default all.
 */
const SELECT = process.env.BENCH_REAL_SELECT?.split(',').map((entry) => entry.trim());
const selected = (name: string) => SELECT === undefined || SELECT.includes(name);

/** One saver for one run: how to measure it, how to open a fresh (cold) instance on the same data, how to end it. */
interface SaverUnderTest {
  saver: BaseCheckpointSaver;
  size(): Promise<number>;
  /** ctxloom PostgreSQL: where the bytes went (relations by fork, rows, payload), logged at each mark. */
  breakdown?(): Promise<string[]>;
  /** A new saver instance on the same storage: no process-local cache. */
  reopen(): Promise<{ saver: BaseCheckpointSaver; close(): Promise<void> }>;
  /** SQLite: keeps a copy of the storage as it is at `mark` turns, for {@link interleavedColdLoads}. */
  keepAt?(mark: number): Promise<void>;
  /** Opens a new saver instance on the copy kept at `mark`; undefined when none was kept. */
  openerAt?(mark: number): (() => { saver: BaseCheckpointSaver; close(): Promise<void> }) | undefined;
  close(): Promise<void>;
}

/** How ctxloom's savers store delta-channel snapshots in this run (`BENCH_SNAPSHOTS`; default `difference`). */
const SNAPSHOTS: SnapshotStorage = process.env.BENCH_SNAPSHOTS === 'reference' ? 'reference' : 'difference';

const SAVERS = ['ctxloom-sqlite', 'official-sqlite', 'ctxloom-postgres', 'official-postgres'] as const;
type SaverKind = (typeof SAVERS)[number];

interface RunResult {
  bytes: Map<number, number>;
  raw: Map<number, number>;
  /** Cold `getState` at each mark (median of 3), ms. */
  loadMs: Map<number, number>;
  /** CPU time of this process during the cold `getState` (median of 3), ms: independent of other load on the machine. */
  loadCpuMs: Map<number, number>;
  loadedMessages: Map<number, number>;
  turnFirstMs: number;
  turn200Ms: number;
  /** CPU time of this process for the same turns (medians), ms. */
  turnFirstCpuMs: number;
  turn200CpuMs: number;
  /** Wall time of the whole run, s. */
  seconds: number;
}

/**
 * Drives `make(saver)` for `turns` turns: at each mark the bytes and a cold `getState` on a
 * fresh saver instance (median of 3); the whole `submitInput` time of turns 1–10 and 191–200
 * (medians).
 */
async function drive(
  opened: SaverUnderTest,
  make: (saver: BaseCheckpointSaver) => RealProcess,
  texts: readonly string[],
  marks: readonly number[],
  log: (message: string) => void,
): Promise<RunResult> {
  const run = make(opened.saver);
  const result: RunResult = {
    bytes: new Map(),
    raw: new Map(),
    loadMs: new Map(),
    loadCpuMs: new Map(),
    loadedMessages: new Map(),
    turnFirstMs: 0,
    turn200Ms: 0,
    turnFirstCpuMs: 0,
    turn200CpuMs: 0,
    seconds: 0,
  };
  const early: number[] = [];
  const late: number[] = [];
  const earlyCpu: number[] = [];
  const lateCpu: number[] = [];
  let rawBytes = 0;
  const started = performance.now();
  const turns = Math.max(...marks);
  for (let turn = 0; turn < turns; turn += 1) {
    const start = performance.now();
    const startCpu = process.cpuUsage();
    await run.turn(turn);
    const ms = performance.now() - start;
    const used = process.cpuUsage(startCpu);
    const cpuMs = (used.user + used.system) / 1000;
    if (turn < 10) {
      early.push(ms);
      earlyCpu.push(cpuMs);
    } else if (turn >= 190 && turn < 200) {
      late.push(ms);
      lateCpu.push(cpuMs);
    }
    rawBytes += Buffer.byteLength(texts[turn * 2] ?? '') + Buffer.byteLength(texts[turn * 2 + 1] ?? '');
    if (!marks.includes(turn + 1)) continue;
    const bytes = await opened.size();
    await opened.keepAt?.(turn + 1);
    result.bytes.set(turn + 1, bytes);
    result.raw.set(turn + 1, rawBytes);
    const loads: number[] = [];
    const cpu: number[] = [];
    for (let round = 0; round < 3; round += 1) {
      const fresh = await opened.reopen();
      const cold = make(fresh.saver);
      const start = performance.now();
      const startCpu = process.cpuUsage();
      result.loadedMessages.set(turn + 1, await cold.load());
      const used = process.cpuUsage(startCpu);
      loads.push(performance.now() - start);
      cpu.push((used.user + used.system) / 1000);
      await fresh.close();
    }
    result.loadMs.set(turn + 1, median(loads));
    result.loadCpuMs.set(turn + 1, median(cpu));
    log(
      `  turn ${turn + 1}: ${bytes} B, ${(bytes / rawBytes).toFixed(3)}× raw, cold getState ${Math.round(median(loads))} ms (CPU ${Math.round(median(cpu))} ms) (${Math.round((performance.now() - started) / 1000)} s)`,
    );
    for (const line of (await opened.breakdown?.()) ?? []) log(`    ${line}`);
  }
  result.turnFirstMs = median(early);
  result.turn200Ms = median(late);
  result.turnFirstCpuMs = median(earlyCpu);
  result.turn200CpuMs = median(lateCpu);
  result.seconds = Math.round((performance.now() - started) / 1000);
  return result;
}

/**
 * Real processes (`createSequentialProcess`, `createDynamicProcess` with the compression
 * stage) through `submitInput` on ctxloom's savers up to {@link MAX_TURNS}, and on the
 * official SqliteSaver up to {@link PEER_MAX_TURNS} and PostgresSaver up to
 * {@link OFFICIAL_POSTGRES_MAX_TURNS}.
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
    if (kind === 'ctxloom-sqlite' || kind === 'official-sqlite') {
      const path = join(tmpdir(), `ctxloom-bench-real-${suffix}-${counter}.db`);
      files.push(path);
      const make = (file: string) => {
        if (kind === 'ctxloom-sqlite') {
          const saver = new SqliteSaver({ path: file, durability: 'normal', snapshots: SNAPSHOTS });
          return { saver, close: () => saver.close() };
        }
        const db = new Database(file);
        db.pragma('synchronous = NORMAL');
        return { saver: new OfficialSqliteSaver(db), close: async () => db.close() };
      };
      const first = make(path);
      const kept = new Map<number, string>();
      return {
        saver: first.saver,
        size: async () => sqliteBytes(path),
        reopen: async () => make(path),
        // After size()'s WAL checkpoint the main file holds everything, and no write is in flight.
        keepAt: async (mark) => {
          // Only marks the official savers reach are compared.
          if (mark > PEER_MAX_TURNS) return;
          const copy = `${path}.turn-${mark}.db`;
          copyFileSync(path, copy);
          files.push(copy);
          kept.set(mark, copy);
        },
        openerAt: (mark) => {
          const copy = kept.get(mark);
          return copy === undefined ? undefined : () => make(copy);
        },
        close: first.close,
      };
    }
    const schema = `${kind.replace('-', '_')}_${suffix}_${counter}`;
    schemas.push(schema);
    if (kind === 'ctxloom-postgres') {
      const saver = new PostgresSaver({ pool, schema, snapshots: SNAPSHOTS });
      await saver.setup();
      return {
        saver,
        size: () => schemaBytes(pool, schema),
        breakdown: () => postgresBreakdown(pool, schema),
        reopen: async () => {
          const fresh = new PostgresSaver({ pool, schema, snapshots: SNAPSHOTS });
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
  const costs: string[] = [];
  try {
    for (const processKind of REAL_PROCESSES) {
      const make = (saver: BaseCheckpointSaver) =>
        realProcess({ kind: processKind, saver, texts, thread: `bench-${processKind}` });
      const results = new Map<SaverKind, RunResult>();
      const finished = new Map<SaverKind, SaverUnderTest>();
      for (const kind of SAVERS) {
        if (!selected(`${processKind}.${kind}`)) continue;
        const limit = kind === 'official-postgres' ? OFFICIAL_POSTGRES_MAX_TURNS : PEER_MAX_TURNS;
        const marks = kind.startsWith('official') ? MARKS.filter((mark) => mark <= limit) : MARKS;
        if (marks.length === 0) continue;
        log(`${processKind} on ${kind}, ${marks.join(' / ')} turns`);
        const opened = await open(kind);
        try {
          const result = await drive(opened, make, texts, marks, log);
          results.set(kind, result);
          finished.set(kind, opened);
          costs.push(`${processKind} on ${kind} to ${Math.max(...marks)} turns: ${result.seconds} s`);
        } finally {
          await opened.close();
        }
      }
      const mine = finished.get('ctxloom-sqlite');
      const theirs = finished.get('official-sqlite');
      if (mine !== undefined && theirs !== undefined) {
        for (const mark of MARKS.filter((turns) => turns <= PEER_MAX_TURNS)) {
          const cpu = await interleavedColdLoads(mine, theirs, mark, make);
          if (cpu === undefined) continue;
          log(
            `  cold getState at turn ${mark}, interleaved: ctxloom ${cpu.mine} ms CPU, official ${cpu.theirs} ms`,
          );
          metrics.push({
            name: `real.${processKind}.ctxloom-sqlite.cold-load-cpu-interleaved.turn-${mark}`,
            value: cpu.mine,
            unit: 'ms',
            peer: { name: 'official SqliteSaver', value: cpu.theirs },
            target: '≤ peer',
            better: 'lower',
          });
        }
      }
      for (const [ours, peer, peerName] of [
        ['ctxloom-sqlite', 'official-sqlite', 'official SqliteSaver'],
        ['ctxloom-postgres', 'official-postgres', 'official PostgresSaver'],
      ] as const) {
        const mine = results.get(ours);
        const theirs = results.get(peer);
        if (mine !== undefined)
          metrics.push(
            ...compare(`real.${processKind}.${ours}`, mine, theirs && { name: peerName, result: theirs }),
          );
        else if (theirs !== undefined)
          metrics.push(...compare(`real.${processKind}.${peer}`, theirs, undefined));
      }
    }
    notes.push(
      `real processes: createSequentialProcess (one agent) and createDynamicProcess (compression Blackboard, compression compact stage, 6 000-token window), driven through submitInput (thread lease held per turn) to ${MARKS.join(' / ')} turns on ctxloom's savers and to the marks ≤ ${PEER_MAX_TURNS} on the official SqliteSaver and ≤ ${OFFICIAL_POSTGRES_MAX_TURNS} on the official PostgresSaver (one getTuple per ancestor: hours to 1 000 turns; BENCH_OFFICIAL_POSTGRES_TURNS raises it); the model is ai/test's MockLanguageModelV4 replying with the next LoCoMo message (500 characters each way)`,
      'official SqliteSaver: @langchain/langgraph-checkpoint-sqlite unmodified, on bench/checkpoint/better-sqlite3-on-node-sqlite (the five better-sqlite3 calls it makes, over node:sqlite; better-sqlite3 itself is a native addon this project does not install); WAL, synchronous=NORMAL like ctxloom SQLite in these runs',
      'bytes: SQLite pages in use (page_count − freelist_count, after a WAL checkpoint); PostgreSQL every relation of the saver schema',
      'LoCoMo has ~514 000 characters (~514 turns of 2 × 500): later turns start over from its beginning, beyond the 24 KiB chain dictionary and DEFLATE window',
      `ctxloom savers store delta-channel snapshots as ${SNAPSHOTS === 'reference' ? 'references to the writes they summarise (BENCH_SNAPSHOTS=reference)' : 'differences to the previous one (the default; BENCH_SNAPSHOTS=reference for references)'}`,
      'cold load: graph.getState on a fresh saver instance (no process cache) over the same storage at each mark, median of 3',
      'turn latency: the whole submitInput turn (lease, getState, invoke with its puts and writes), median of turns 1–10 and of turns 191–200 on the same thread, same process',
      'cold-load-cpu and turn-cpu: CPU time of the bench process (process.cpuUsage, user + system, all its threads) over the same intervals: unlike wall time it does not grow with other load on the machine',
      `cost of each run (wall, this machine): ${costs.join('; ')}`,
    );
  } finally {
    for (const schema of schemas) await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
    for (const path of files)
      for (const end of ['', '-wal', '-shm']) rmSync(`${path}${end}`, { force: true });
  }
  return { metrics, notes };
}

/** Rounds of {@link interleavedColdLoads} per saver. */
const INTERLEAVED_ROUNDS = 9;

/**
 * CPU time of a cold `getState` on both savers' copies kept at `mark` turns, alternating
 * (ABBA…) so drift in the machine's speed falls on both alike; the store is opened inside the
 * measured time (the official saver opens its file eagerly, ctxloom's on first use). Medians
 * of {@link INTERLEAVED_ROUNDS}, ms; undefined when either copy is missing.
 */
async function interleavedColdLoads(
  mine: SaverUnderTest,
  theirs: SaverUnderTest,
  mark: number,
  make: (saver: BaseCheckpointSaver) => RealProcess,
): Promise<{ mine: number; theirs: number } | undefined> {
  const openMine = mine.openerAt?.(mark);
  const openTheirs = theirs.openerAt?.(mark);
  if (openMine === undefined || openTheirs === undefined) return undefined;
  const cpu = { mine: [] as number[], theirs: [] as number[] };
  const once = async (open: typeof openMine) => {
    globalThis.gc?.();
    const start = process.cpuUsage();
    const opened = open();
    await make(opened.saver).load();
    const used = process.cpuUsage(start);
    await opened.close();
    return (used.user + used.system) / 1000;
  };
  // One unmeasured round each: the first load in a process also compiles the code.
  await once(openMine);
  await once(openTheirs);
  for (let index = 0; index < INTERLEAVED_ROUNDS; index += 1) {
    const order = index % 2 === 0 ? (['mine', 'theirs'] as const) : (['theirs', 'mine'] as const);
    for (const side of order) cpu[side].push(await once(side === 'mine' ? openMine : openTheirs));
  }
  return { mine: round(median(cpu.mine)), theirs: round(median(cpu.theirs)) };
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
  if (Number.isFinite(mine.turn200Ms) && mine.turn200Ms > 0)
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
        name: `${prefix}.turn-cpu.turn200-over-turn1`,
        value: round(mine.turn200CpuMs / mine.turnFirstCpuMs),
        unit: 'x',
        target: '≤ 2',
        better: 'lower',
      },
      { name: `${prefix}.turn-cpu.turn1`, value: round(mine.turnFirstCpuMs), unit: 'ms' },
      { name: `${prefix}.turn-cpu.turn200`, value: round(mine.turn200CpuMs), unit: 'ms' },
    );
  for (const [turn, ms] of mine.loadMs) {
    const theirs = peer?.result.loadMs.get(turn);
    metrics.push(
      {
        name: `${prefix}.cold-load.turn-${turn}`,
        value: round(ms),
        unit: 'ms',
        ...(peer === undefined || theirs === undefined
          ? {}
          : { peer: { name: peer.name, value: round(theirs) } }),
        target: theirs === undefined ? 'context' : '≤ peer',
        better: 'lower',
      },
      {
        name: `${prefix}.cold-load-cpu.turn-${turn}`,
        value: round(mine.loadCpuMs.get(turn) ?? 0),
        unit: 'ms',
        ...(peer?.result.loadCpuMs.get(turn) === undefined
          ? {}
          : { peer: { name: peer.name, value: round(peer.result.loadCpuMs.get(turn) ?? 0) } }),
        target: theirs === undefined ? 'context' : '≤ peer',
        better: 'lower',
      },
      {
        name: `${prefix}.cold-load.turn-${turn}.messages`,
        value: mine.loadedMessages.get(turn) ?? 0,
        unit: 'messages',
      },
    );
  }
  metrics.push({ name: `${prefix}.run-seconds`, value: mine.seconds, unit: 's' });
  return metrics;
}

/** Pages in use of a SQLite file, after a WAL checkpoint (as ctxloom's `SqliteSaver.sizeBytes`). */
function sqliteBytes(path: string): number {
  const db = new Database(path);
  try {
    db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    const one = (pragma: string) => Number(Object.values(db.prepare(`PRAGMA ${pragma}`).get() ?? {})[0] ?? 0);
    return (one('page_count') - one('freelist_count')) * one('page_size');
  } finally {
    db.close();
  }
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
