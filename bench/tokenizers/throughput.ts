import { createO200kCounter, type ExactTokenCounter } from '../../src/tokenizers/index.ts';
import { type BenchContext, type BenchMetric, measureInterleaved, megabytesPerSecond } from '../lib/index.ts';
import { createPeerCounters } from './peers.ts';

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
 * Counting throughput of ctxloom's uncached o200k counter against every peer, same run,
 * round-robin, medians of `context.runs` after 2 warm-up rounds. Every run starts cold:
 * ctxloom's piece and pair caches and gpt-tokenizer's merge cache are cleared before it (the
 * vocabularies stay loaded, for every implementation alike). Fails loudly if any peer disagrees on the token total.
 */
export function measureThroughput(context: BenchContext, sets: readonly TextSet[]): BenchMetric[] {
  const peers = createPeerCounters();
  const metrics: BenchMetric[] = [];
  for (const set of sets) {
    const bytes = set.texts.reduce((sum, text) => sum + Buffer.byteLength(text), 0);
    const counter: ExactTokenCounter = createO200kCounter();
    const measurements = measureInterleaved(
      [
        {
          name: 'ctxloom',
          setup: () => counter.bpe.clearCaches(),
          run: () => countAll(counter.countText, set.texts),
        },
        ...peers.map((peer) => ({
          name: peer.name,
          setup: peer.reset,
          run: () => countAll(peer.count, set.texts),
        })),
      ],
      { runs: context.runs, warmup: 2 },
    );
    const [ours, ...others] = measurements;
    if (ours === undefined) continue;
    for (const other of others) {
      if (other.output !== ours.output) {
        throw new Error(
          `${other.name} counted ${String(other.output)} tokens on ${set.label}, ctxloom ${String(ours.output)}`,
        );
      }
    }
    const oursMbps = megabytesPerSecond(bytes, ours.medianMs);
    context.log(
      `${set.label}: ${set.texts.length} texts, ${(bytes / 1e6).toFixed(2)} MB, ${String(ours.output)} tokens`,
    );
    let fastest = { name: '', value: 0 };
    for (const other of others) {
      const value = megabytesPerSecond(bytes, other.medianMs);
      if (value > fastest.value) fastest = { name: other.name, value };
      metrics.push({
        name: `o200k.throughput.${set.label}.vs-${other.name.split(' ')[0]}`,
        value: oursMbps,
        unit: 'MB/s',
        peer: { name: other.name, value },
      });
    }
    metrics.push({
      name: `o200k.throughput.${set.label}.vs-fastest`,
      value: oursMbps,
      unit: 'MB/s',
      peer: fastest,
      target: 'ratio ≥ 1 (not slower than the fastest peer)',
    });
  }
  return metrics;
}
