import type { BenchMetric } from './result.ts';

/** What the runner hands each suite. */
export interface BenchContext {
  /** Prints a progress line (to stderr, so stdout keeps only the result tables). */
  log: (message: string) => void;
  /** Timed runs per measurement (≥ 5). Default 5; `BENCH_RUNS` overrides. */
  runs: number;
}

/**
 * What a suite's `run` may return: its metrics, or an object holding them plus extra fields
 * (e.g. `notes`) that are kept in the result file.
 */
export type BenchSuiteOutput = BenchMetric[] | ({ metrics: BenchMetric[] } & Record<string, unknown>);

/** A benchmark suite: `bench/<suite>/index.ts` exports `run`. */
export interface BenchSuite {
  run: (context: BenchContext) => Promise<BenchSuiteOutput>;
}
