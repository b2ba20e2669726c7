import type { BenchMetric } from './result.ts';

/** What the runner hands each suite. */
export interface BenchContext {
  /** Prints a progress line (to stderr, so stdout keeps only the result tables). */
  log: (message: string) => void;
  /** Timed runs per measurement (≥ 5). Default 5; `BENCH_RUNS` overrides. */
  runs: number;
}

/** A benchmark suite: `bench/<suite>/index.ts` exports `run`. */
export interface BenchSuite {
  run: (context: BenchContext) => Promise<BenchMetric[]>;
}
