import { median } from '../lib/measure.ts';

/** An async candidate: `setup` is untimed, `run` is timed. */
export interface AsyncCandidate {
  name: string;
  setup?: () => void;
  run: () => Promise<unknown>;
}

/** Like `measureInterleaved`, for async work: round-robin runs, median per candidate (ms). */
export async function measureAsync(
  candidates: readonly AsyncCandidate[],
  options: { runs?: number; warmup?: number } = {},
): Promise<{ name: string; medianMs: number; samplesMs: number[] }[]> {
  const runs = Math.max(5, options.runs ?? 5);
  const warmup = options.warmup ?? 1;
  const samples = candidates.map(() => [] as number[]);
  const collectGarbage = (globalThis as { gc?: () => void }).gc;
  for (let round = 0; round < warmup + runs; round++) {
    for (const [index, candidate] of candidates.entries()) {
      candidate.setup?.();
      collectGarbage?.();
      const start = performance.now();
      await candidate.run();
      const elapsed = performance.now() - start;
      if (round >= warmup) samples[index]?.push(elapsed);
    }
  }
  return candidates.map((candidate, index) => ({
    name: candidate.name,
    medianMs: median(samples[index] ?? []),
    samplesMs: samples[index] ?? [],
  }));
}
