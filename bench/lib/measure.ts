/** One implementation timed by {@link measureInterleaved}. */
export interface BenchCandidate {
  name: string;
  /** Untimed preparation before every run (e.g. clearing a cache so each run starts cold). */
  setup?: () => void;
  /** The timed work. Return a value so the work cannot be optimised away. */
  run: () => unknown;
}

/** Options of {@link measureInterleaved}. */
export interface MeasureOptions {
  /** Timed runs per candidate. Default 5, minimum 5. */
  runs?: number;
  /** Untimed warm-up runs per candidate (JIT, lazy loading). Default 1. */
  warmup?: number;
}

/** Timings of one candidate. */
export interface Measurement {
  name: string;
  /** Median of the timed runs, in milliseconds. */
  medianMs: number;
  /** Every timed run, in milliseconds, in run order. */
  samplesMs: number[];
  /**
   * Median CPU time (user + system, all threads of the process) of the timed runs, in
   * milliseconds: steadier than wall time when other processes share the cores.
   */
  medianCpuMs: number;
  /**
   * Median CPU time of the main thread alone: the work the candidate itself did, without the
   * collector's and compiler's helper threads (whose sweeping after the `gc()` before each run
   * lands in whichever run comes next). Kernels that account a thread's time at the tick read
   * it short by up to a tick's worth (~1 ms on a 20 ms run where the tick is 4 ms): for runs
   * of tens of milliseconds only.
   */
  medianMainCpuMs: number;
  /** What the last run returned (for checking candidates agree). */
  output: unknown;
}

const collectGarbage = (globalThis as { gc?: () => void }).gc;

/**
 * Whether the machine runs at its usual speed, by a fixed loop timed against its fastest time.
 * On the shared virtual machines the bench runs on, the vCPU is now and then slowed ~10–20× for
 * tens to hundreds of milliseconds, and the guest sees no steal time: a process's own CPU clock
 * counts the lost time as its work. A 4,000-element loop that allocates nothing ran 0.07 ms
 * between such stretches and 1.4–3.7 ms inside them, in step with a warm recompile beside it
 * (0.3–0.6 → 3–8 ms); one run caught in a stretch makes a ratio of medians swing by a quarter.
 * So each timed run is bracketed by the probe, and a run with a slow probe on either side is
 * run again (at most {@link MAX_RETIMES} times; then it is kept, and counted as kept slow).
 */
export interface SpeedProbe {
  /** Times the probe once: true when it took more than {@link SLOW_FACTOR}× its fastest time. */
  slow(): boolean;
  /**
   * After a timed run: probes again and returns whether the run stands (neither probe slow,
   * or this run was tried {@link MAX_RETIMES} times already); false asks for it to run again.
   */
  settle(slowBefore: boolean): boolean;
  /** Runs timed again because a probe beside them was slow, and runs kept slow; since the last `take`. */
  take(): { retimed: number; keptSlow: number };
}

const SLOW_FACTOR = 5;
const MAX_RETIMES = 3;

function createSpeedProbe(): SpeedProbe {
  const values = new Int32Array(4096).map((_, index) => (index * 2654435761) | 0);
  let sink = 0;
  const once = (): number => {
    const start = performance.now();
    let hash = sink;
    for (let pass = 0; pass < 8; pass++)
      for (let index = 0; index < values.length; index++)
        hash = (Math.imul(hash, 31) + (values[index] as number)) | 0;
    sink = hash;
    return performance.now() - start;
  };
  let fastest = Number.POSITIVE_INFINITY;
  const calibrate = () => {
    for (let trial = 0; trial < 200; trial++) fastest = Math.min(fastest, once());
  };
  let tries = 0;
  let retimed = 0;
  let keptSlow = 0;
  return {
    slow() {
      if (fastest === Number.POSITIVE_INFINITY) calibrate();
      const took = once();
      fastest = Math.min(fastest, took);
      return took > SLOW_FACTOR * fastest;
    },
    settle(slowBefore) {
      const slow = this.slow() || slowBefore;
      if (!slow) {
        tries = 0;
        return true;
      }
      if (tries >= MAX_RETIMES) {
        tries = 0;
        keptSlow++;
        return true;
      }
      tries++;
      retimed++;
      return false;
    },
    take() {
      const counts = { retimed, keptSlow };
      retimed = 0;
      keptSlow = 0;
      return counts;
    },
  };
}

/** The bench's one {@link SpeedProbe}: the measuring loops here and the suites' own sample loops use it. */
export const speedProbe: SpeedProbe = createSpeedProbe();

/**
 * Times candidates round-robin — run 1 of each, then run 2 of each, … — so load from other
 * processes hits all of them alike, and reports the median of each. Runs `global.gc()`
 * before every run when Node was started with `--expose-gc` (as `npm run bench` does).
 */
export function measureInterleaved(
  candidates: readonly BenchCandidate[],
  options: MeasureOptions = {},
): Measurement[] {
  const log = createSampleLog(candidates.length, options);
  for (let round = 0; round < log.rounds; round++) {
    candidates.forEach((candidate, index) => {
      for (;;) {
        const end = beginRun(candidate);
        const output = candidate.run();
        const { time, stands } = end();
        if (!stands) continue;
        log.record(round, index, time, output);
        break;
      }
    });
  }
  return log.measurements(candidates);
}

/** One async implementation timed by {@link measureInterleavedAsync}. */
export interface AsyncBenchCandidate {
  name: string;
  /** Untimed preparation before every run. */
  setup?: () => void;
  /** The timed work. */
  run: () => Promise<unknown>;
}

/** {@link measureInterleaved} for async work: same rounds, gc, medians. */
export async function measureInterleavedAsync(
  candidates: readonly AsyncBenchCandidate[],
  options: MeasureOptions = {},
): Promise<Measurement[]> {
  const log = createSampleLog(candidates.length, options);
  for (let round = 0; round < log.rounds; round++) {
    for (const [index, candidate] of candidates.entries()) {
      for (;;) {
        const end = beginRun(candidate);
        const output = await candidate.run();
        const { time, stands } = end();
        if (!stands) continue;
        log.record(round, index, time, output);
        break;
      }
    }
  }
  return log.measurements(candidates);
}

/**
 * Prepares one timed run (the candidate's setup, a collection, a speed probe) and starts its
 * clocks; the returned function stops them and says whether the run stands (see {@link SpeedProbe}).
 */
function beginRun(candidate: { setup?: () => void }): () => { time: RunTime; stands: boolean } {
  candidate.setup?.();
  collectGarbage?.();
  const before = speedProbe.slow();
  const timer = startTimer();
  return () => {
    const time = timer();
    return { time, stands: speedProbe.settle(before) };
  };
}

/** A run's wall time, the process's CPU time and the main thread's, in milliseconds. */
export interface RunTime {
  wallMs: number;
  cpuMs: number;
  mainCpuMs: number;
}

/**
 * A candidate that counts `texts()` once with a counter `load`ed anew before each run (its
 * caches empty): the tokenising a compile is compared with.
 */
export function tokenisingCandidate(
  name: string,
  load: () => { countText(text: string): number },
  texts: () => readonly string[],
): AsyncBenchCandidate {
  let counter = load();
  return {
    name,
    setup: () => {
      counter = load();
    },
    run: async () => {
      let total = 0;
      for (const text of texts()) total += counter.countText(text);
      return total;
    },
  };
}

/** Starts the wall, process CPU and main-thread CPU clocks; the returned function reads them. */
export function startTimer(): () => RunTime {
  const cpuStart = process.cpuUsage();
  const mainStart = process.threadCpuUsage();
  const start = performance.now();
  return () => {
    const wallMs = performance.now() - start;
    const cpu = process.cpuUsage(cpuStart);
    const main = process.threadCpuUsage(mainStart);
    return { wallMs, cpuMs: (cpu.user + cpu.system) / 1000, mainCpuMs: (main.user + main.system) / 1000 };
  };
}

/** Samples per candidate, skipping warm-up rounds. */
function createSampleLog(count: number, options: MeasureOptions) {
  const runs = Math.max(5, options.runs ?? 5);
  const warmup = options.warmup ?? 1;
  const samples = Array.from({ length: count }, () => [] as number[]);
  const cpuSamples = Array.from({ length: count }, () => [] as number[]);
  const mainCpuSamples = Array.from({ length: count }, () => [] as number[]);
  const outputs: unknown[] = new Array(count).fill(undefined);
  return {
    rounds: warmup + runs,
    record(round: number, index: number, time: RunTime, output: unknown) {
      outputs[index] = output;
      if (round < warmup) return;
      samples[index]?.push(time.wallMs);
      cpuSamples[index]?.push(time.cpuMs);
      mainCpuSamples[index]?.push(time.mainCpuMs);
    },
    measurements(candidates: readonly { name: string }[]): Measurement[] {
      return candidates.map((candidate, index) => {
        const samplesMs = samples[index] ?? [];
        return {
          name: candidate.name,
          medianMs: median(samplesMs),
          samplesMs,
          medianCpuMs: median(cpuSamples[index] ?? []),
          medianMainCpuMs: median(mainCpuSamples[index] ?? []),
          output: outputs[index],
        };
      });
    },
  };
}

/** Median of a non-empty list (mean of the middle two for even lengths). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** Megabytes (10⁶ bytes) per second for `bytes` processed in `milliseconds`. */
export function megabytesPerSecond(bytes: number, milliseconds: number): number {
  return bytes / 1e6 / (milliseconds / 1000);
}
