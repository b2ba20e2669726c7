import { loadavg } from 'node:os';
import type { EvalCorpus } from './datasets.ts';
import type { Engine, Searcher } from './peers.ts';

/** What {@link queryLatency} measured. */
export interface QueryLatency {
  /** Median per-query latency in microseconds, by engine name. */
  p50: Map<string, number>;
  /** 90th-percentile per-query latency in microseconds, by engine name. */
  p90: Map<string, number>;
  /** 99th-percentile per-query latency in microseconds, by engine name. */
  p99: Map<string, number>;
  /** 1-minute load average when the timed rounds started and when they ended. */
  loadAverage: { start: number; end: number };
}

/**
 * Per-query latency of each engine in microseconds. Engines are built once, warmed up with
 * one pass over every question, then timed for `rounds` rounds; within a round every engine
 * runs the full question list in turn, so load changes on a shared machine hit all engines
 * alike. Each query is timed on its own (top 10), awaited even when the engine is
 * synchronous (FlexSearch), so an async engine pays for its promises.
 */
export async function queryLatency(engines: Engine[], corpus: EvalCorpus, rounds = 7): Promise<QueryLatency> {
  const searchers = new Map<string, Searcher>();
  for (const engine of engines) {
    const searcher = engine.build(corpus.documents);
    for (const question of corpus.questions) await searcher.search(question.question, 10);
    searchers.set(engine.name, searcher);
  }
  const samples = new Map<string, number[]>(engines.map((engine) => [engine.name, []]));
  const start = loadavg()[0] ?? 0;
  for (let round = 0; round < rounds; round++) {
    for (const [name, searcher] of searchers) {
      const list = samples.get(name) as number[];
      for (const question of corpus.questions) {
        const begin = performance.now();
        await searcher.search(question.question, 10);
        list.push((performance.now() - begin) * 1000);
      }
    }
  }
  const end = loadavg()[0] ?? 0;
  const sorted = [...samples].map(
    ([name, values]) => [name, values.sort((left, right) => left - right)] as const,
  );
  return {
    p50: new Map(sorted.map(([name, values]) => [name, quantile(values, 0.5)])),
    p90: new Map(sorted.map(([name, values]) => [name, quantile(values, 0.9)])),
    p99: new Map(sorted.map(([name, values]) => [name, quantile(values, 0.99)])),
    loadAverage: { start, end },
  };
}

/**
 * Per-query latency in microseconds of `retrieve` called the way an agent calls it: walking
 * the conversation in order, the question at turn i comes with the `recentMessages` turns
 * before it as history (so each query brings one new message). The first `warmup` turns are
 * not timed. Returns the median and the 90th percentile.
 */
export async function conversationWalkLatency(
  retrieve: (query: string, history: string[]) => Promise<unknown>,
  corpus: EvalCorpus,
  options: { recentMessages: number; warmup: number },
): Promise<{ p50: number; p90: number }> {
  const texts = corpus.documents.map((document) => document.text);
  const samples: number[] = [];
  for (let turn = options.recentMessages; turn < texts.length; turn++) {
    const question = corpus.questions[turn % corpus.questions.length]?.question ?? '';
    const history = texts.slice(turn - options.recentMessages, turn);
    const begin = performance.now();
    await retrieve(question, history);
    if (turn >= options.warmup) samples.push((performance.now() - begin) * 1000);
  }
  samples.sort((left, right) => left - right);
  return { p50: quantile(samples, 0.5), p90: quantile(samples, 0.9) };
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
  return samples.map((values) =>
    quantile(
      [...values].sort((left, right) => left - right),
      0.5,
    ),
  );
}

/** Median wall time in milliseconds of `build` over `runs` runs. */
export function buildTimeMs(build: () => void, runs = 3): number {
  const samples: number[] = [];
  for (let run = 0; run < runs; run++) {
    const start = performance.now();
    build();
    samples.push(performance.now() - start);
  }
  return quantile(
    samples.sort((left, right) => left - right),
    0.5,
  );
}

// Quantile of sorted values; the median of an even count is the mean of the middle two.
function quantile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  if (fraction === 0.5 && sorted.length % 2 === 0) {
    const middle = sorted.length / 2;
    return ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
  }
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] as number;
}
