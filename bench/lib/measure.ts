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
  /** What the last run returned (for checking candidates agree). */
  output: unknown;
}

const collectGarbage = (globalThis as { gc?: () => void }).gc;

/**
 * Times candidates round-robin — run 1 of each, then run 2 of each, … — so load from other
 * processes hits all of them alike, and reports the median of each. Runs `global.gc()`
 * before every run when Node was started with `--expose-gc` (as `npm run bench` does).
 */
export function measureInterleaved(
  candidates: readonly BenchCandidate[],
  options: MeasureOptions = {},
): Measurement[] {
  const runs = Math.max(5, options.runs ?? 5);
  const warmup = options.warmup ?? 1;
  const samples = candidates.map(() => [] as number[]);
  const cpuSamples = candidates.map(() => [] as number[]);
  const outputs: unknown[] = candidates.map(() => undefined);
  for (let round = 0; round < warmup + runs; round++) {
    candidates.forEach((candidate, index) => {
      candidate.setup?.();
      collectGarbage?.();
      const cpuStart = process.cpuUsage();
      const start = performance.now();
      outputs[index] = candidate.run();
      const elapsed = performance.now() - start;
      const cpu = process.cpuUsage(cpuStart);
      if (round >= warmup) {
        samples[index]?.push(elapsed);
        cpuSamples[index]?.push((cpu.user + cpu.system) / 1000);
      }
    });
  }
  return candidates.map((candidate, index) => {
    const samplesMs = samples[index] ?? [];
    return {
      name: candidate.name,
      medianMs: median(samplesMs),
      samplesMs,
      medianCpuMs: median(cpuSamples[index] ?? []),
      output: outputs[index],
    };
  });
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
