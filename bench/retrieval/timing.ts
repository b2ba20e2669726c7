import type { EvalCorpus } from './datasets.ts';
import type { Engine, Searcher } from './peers.ts';

/**
 * Median per-query latency in microseconds for each engine. Engines are built once, warmed
 * up with one pass over every question, then timed for `rounds` rounds; within a round every
 * engine runs the full question list in turn, so load changes on a shared machine hit all
 * engines alike. Each query is timed on its own (top 10).
 */
export async function queryLatencyP50(
  engines: Engine[],
  corpus: EvalCorpus,
  rounds = 7,
): Promise<Map<string, number>> {
  const searchers = new Map<string, Searcher>();
  for (const engine of engines) {
    const searcher = engine.build(corpus.documents);
    for (const question of corpus.questions) await searcher.search(question.question, 10);
    searchers.set(engine.name, searcher);
  }
  const samples = new Map<string, number[]>(engines.map((engine) => [engine.name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const [name, searcher] of searchers) {
      const list = samples.get(name) as number[];
      for (const question of corpus.questions) {
        const start = performance.now();
        await searcher.search(question.question, 10);
        list.push((performance.now() - start) * 1000);
      }
    }
  }
  return new Map([...samples].map(([name, values]) => [name, median(values)]));
}

/**
 * Median wall time in milliseconds of each build, the builds alternating run by run so a load
 * change on the shared machine hits them alike.
 */
export function interleavedBuildTimesMs(builds: Array<() => void>, runs = 5): number[] {
  const samples = builds.map((): number[] => []);
  for (let run = 0; run < runs; run++) {
    for (const [index, build] of builds.entries()) {
      const start = performance.now();
      build();
      samples[index]?.push(performance.now() - start);
    }
  }
  return samples.map(median);
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
