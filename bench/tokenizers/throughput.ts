import { createO200kCounter } from '../../src/tokenizers/index.ts';
import {
  type BenchContext,
  type BenchMetric,
  type Measurement,
  measureInterleaved,
  megabytesPerSecond,
} from '../lib/index.ts';
import { createPeerCounters, type PeerCounter } from './peers.ts';

/** A named list of texts whose counts are summed in one run. */
export interface TextSet {
  /** Short label used in metric names (`en`, `zh`). */
  label: string;
  texts: string[];
}

const countAll = (count: (text: string) => number, texts: readonly string[]): number => {
  let total = 0;
  for (const text of texts) total += count(text);
  return total;
};

/**
 * Times ctxloom's o200k counter against `peers`, round-robin, medians of `context.runs`
 * after 2 warm-up rounds. Every run starts cold: ctxloom's piece and pair caches and
 * gpt-tokenizer's merge cache are cleared first (vocabularies stay loaded for everyone).
 * Throws if a peer's token total differs from ctxloom's.
 */
function compare(
  context: BenchContext,
  set: TextSet,
  peers: readonly PeerCounter[],
  caches: 'cold' | 'warm' = 'cold',
): Measurement[] {
  const counter = createO200kCounter();
  const cold = caches === 'cold';
  const measurements = measureInterleaved(
    [
      {
        name: 'ctxloom',
        ...(cold ? { setup: () => counter.bpe.clearCaches() } : {}),
        run: () => countAll(counter.countText, set.texts),
      },
      ...peers.map((peer) => ({
        name: peer.name,
        ...(cold ? { setup: peer.reset } : {}),
        run: () => countAll(peer.count, set.texts),
      })),
    ],
    { runs: context.runs, warmup: 2 },
  );
  const ours = measurements[0];
  for (const other of measurements.slice(1)) {
    if (other.output !== ours?.output) {
      throw new Error(
        `${other.name} counted ${String(other.output)} tokens on ${set.label}, ctxloom ${String(ours?.output)}`,
      );
    }
  }
  return measurements;
}

/**
 * Counting throughput (MB of UTF-8 per second) of ctxloom's uncached o200k counter against
 * gpt-tokenizer and tiktoken (wasm) in one round-robin group, and against js-tiktoken in a
 * second group (it is ~10× slower and its garbage would burden whoever runs after it).
 * Reports each ratio, the ratio to the fastest peer in wall time (the target) and in CPU time.
 */
export function measureThroughput(context: BenchContext, sets: readonly TextSet[]): BenchMetric[] {
  const peers = createPeerCounters();
  const fastGroup = peers.filter((peer) => peer.name !== 'js-tiktoken');
  const slowGroup = peers.filter((peer) => peer.name === 'js-tiktoken');
  const metrics: BenchMetric[] = [];
  for (const set of sets) {
    const bytes = set.texts.reduce((sum, text) => sum + Buffer.byteLength(text), 0);
    const [ours, ...fast] = compare(context, set, fastGroup);
    // Caches kept from run to run (the corpus counted again): gpt-tokenizer's merge cache and
    // ctxloom's piece and pair caches warm, as when an agent recounts text it has seen.
    const [oursWarm, ...fastWarm] = compare(context, set, fastGroup, 'warm');
    const [oursAgain, ...slow] = compare(context, set, slowGroup);
    if (ours === undefined || oursAgain === undefined) continue;
    context.log(
      `${set.label}: ${set.texts.length} texts, ${(bytes / 1e6).toFixed(2)} MB, ${String(ours.output)} tokens`,
    );
    const rate = (measurement: Measurement) => megabytesPerSecond(bytes, measurement.medianMs);
    const cpuRate = (measurement: Measurement) => megabytesPerSecond(bytes, measurement.medianCpuMs);
    const versus = (baseline: Measurement, other: Measurement): BenchMetric => ({
      name: `o200k.throughput.${set.label}.vs-${other.name.split(' ')[0]}`,
      value: rate(baseline),
      unit: 'MB/s',
      peer: { name: other.name, value: rate(other) },
    });
    if (oursWarm !== undefined) {
      metrics.push(
        ...fastWarm.map((other) => ({
          ...versus(oursWarm, other),
          name: `o200k.throughput.${set.label}.caches-warm.vs-${other.name.split(' ')[0]}`,
        })),
      );
    }
    metrics.push(
      ...fast.map((other) => versus(ours, other)),
      ...slow.map((other) => versus(oursAgain, other)),
    );
    const fastest = [...fast, ...slow].reduce((best, other) => (rate(other) > rate(best) ? other : best));
    const fastestCpu = [...fast, ...slow].reduce((best, other) =>
      cpuRate(other) > cpuRate(best) ? other : best,
    );
    metrics.push(
      {
        name: `o200k.throughput.${set.label}.vs-fastest`,
        value: rate(ours),
        unit: 'MB/s',
        peer: { name: fastest.name, value: rate(fastest) },
        target: 'ratio ≥ 1 (not slower than the fastest peer)',
      },
      {
        // CPU time is less disturbed by other processes sharing the cores.
        name: `o200k.cpu-throughput.${set.label}.vs-fastest`,
        value: cpuRate(ours),
        unit: 'MB/s',
        peer: { name: fastestCpu.name, value: cpuRate(fastestCpu) },
        target: 'ratio ≥ 1',
      },
    );
  }
  return metrics;
}
