import { createEstimatorCounter, createO200kCounter } from '../../src/tokenizers/index.ts';
import { type BenchContext, type BenchMetric, measureInterleaved, megabytesPerSecond } from '../lib/index.ts';
import type { EstimatorCorpus } from './estimator-data.ts';
import { measureEstimatorError } from './estimator-error.ts';
import type { TextSet } from './throughput.ts';

/**
 * The estimator's error against exact o200k on the held-out half (mean and p95 of |error|,
 * share under-counted, total bias) per language and on mixed text, and its speed against
 * the exact counter.
 */
export function measureEstimator(
  context: BenchContext,
  corpus: EstimatorCorpus,
  sets: readonly TextSet[],
): BenchMetric[] {
  const estimator = createEstimatorCounter();
  const exact = createO200kCounter();
  const metrics: BenchMetric[] = [];
  const heldOut: [string, string[]][] = [
    ['en', corpus.english.heldOut],
    ['zh', corpus.chinese.heldOut],
    ['mixed', corpus.mixed],
  ];
  for (const [label, texts] of heldOut) {
    const error = measureEstimatorError(estimator, exact, texts);
    context.log(`estimator ${label}: ${error.texts} held-out texts`);
    metrics.push(
      { name: `estimator.error.${label}.mean-abs`, value: error.meanAbsPercent, unit: '%', target: '≤ 10 %' },
      { name: `estimator.error.${label}.p95-abs`, value: error.p95AbsPercent, unit: '%' },
      { name: `estimator.error.${label}.under-counted`, value: error.underCountPercent, unit: '% of texts' },
      {
        name: `estimator.error.${label}.total`,
        value: error.totalPercent,
        unit: '%',
        target: '≥ 0 (over-count)',
      },
    );
  }
  for (const set of sets) {
    const bytes = set.texts.reduce((sum, text) => sum + Buffer.byteLength(text), 0);
    const fresh = createO200kCounter();
    const [estimated, counted] = measureInterleaved(
      [
        { name: 'estimator', run: () => set.texts.reduce((sum, text) => sum + estimator.countText(text), 0) },
        {
          name: 'o200k',
          setup: () => fresh.bpe.clearCaches(),
          run: () => set.texts.reduce((sum, text) => sum + fresh.countText(text), 0),
        },
      ],
      { runs: context.runs, warmup: 2 },
    );
    if (estimated === undefined || counted === undefined) continue;
    metrics.push({
      name: `estimator.throughput.${set.label}`,
      value: megabytesPerSecond(bytes, estimated.medianMs),
      unit: 'MB/s',
      peer: { name: 'ctxloom o200k', value: megabytesPerSecond(bytes, counted.medianMs) },
    });
  }
  return metrics;
}
