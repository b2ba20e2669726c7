import type { EvalCorpus } from './datasets.ts';
import type { Engine } from './peers.ts';

/**
 * Median per-query latency in microseconds: one warm-up pass over every question, then
 * `rounds` timed passes, each query timed on its own.
 */
export async function queryLatencyP50(engine: Engine, corpus: EvalCorpus, rounds = 5): Promise<number> {
  const searcher = engine.build(corpus.documents);
  for (const question of corpus.questions) await searcher.search(question.question, 10);
  const samples: number[] = [];
  for (let round = 0; round < rounds; round++) {
    for (const question of corpus.questions) {
      const start = performance.now();
      await searcher.search(question.question, 10);
      samples.push((performance.now() - start) * 1000);
    }
  }
  return median(samples);
}

/** Median wall time in milliseconds of `build` over `runs` runs. */
export function buildTimeMs(build: () => void, runs = 3): number {
  const samples: number[] = [];
  for (let run = 0; run < runs; run++) {
    const start = performance.now();
    build();
    samples.push(performance.now() - start);
  }
  return median(samples);
}

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}
