import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { fileURLToPath } from 'node:url';

/** One measured number, optionally beside the peer it competes with (same run). */
export interface BenchMetric {
  /** Stable, dotted name, e.g. `o200k.throughput.zh.vs-tiktoken`. */
  name: string;
  value: number;
  /** Unit of `value` (and of `peer.value`): `MB/s`, `ms`, `%`, `x`, … */
  unit: string;
  /** The competing implementation measured in the same run. */
  peer?: { name: string; value: number };
  /** What counts as success, in words (e.g. `≥ 1× the fastest peer`). */
  target?: string;
  /** Which direction is better; default from the unit (`%` is ambiguous: recall vs error). */
  better?: 'higher' | 'lower';
}

/** The file a suite writes to `bench/results/<suite>.json`. */
export interface BenchResult {
  suite: string;
  /** `process.version` of the run. */
  node: string;
  /** Logical CPUs available to the process. */
  cpus: number;
  /** CPU model, e.g. `AMD EPYC 7B13`. */
  cpuModel: string;
  /** ISO 8601 time the suite finished. */
  date: string;
  metrics: BenchMetric[];
}

/** Folder the results are written to (git-ignored). */
export const RESULTS_DIRECTORY = fileURLToPath(new URL('../results/', import.meta.url));

/** Wraps metrics with the run's environment. */
export function createBenchResult(
  suite: string,
  metrics: BenchMetric[],
  date: Date = new Date(),
): BenchResult {
  return {
    suite,
    node: process.version,
    cpus: availableParallelism(),
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
    date: date.toISOString(),
    metrics,
  };
}

/** Writes `bench/results/<suite>.json` and returns its path. */
export function writeBenchResult(result: BenchResult, directory: string = RESULTS_DIRECTORY): string {
  mkdirSync(directory, { recursive: true });
  const path = `${directory.replace(/\/$/, '')}/${result.suite}.json`;
  writeFileSync(path, `${JSON.stringify(result, null, 2)}\n`);
  return path;
}
