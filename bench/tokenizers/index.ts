import { createRequire } from 'node:module';
import { createO200kCounter } from '../../src/tokenizers/index.ts';
import { type BenchContext, type BenchMetric, loadCmrcParagraphs, loadLocomoTurns } from '../lib/index.ts';
import { loadEstimatorCorpus } from './estimator-data.ts';
import { measureEstimator } from './estimator-metrics.ts';
import { measureThroughput, type TextSet } from './throughput.ts';

/**
 * Tokenizer suite: o200k counting throughput of ctxloom vs gpt-tokenizer, js-tiktoken and
 * tiktoken (wasm) on English (LoCoMo turns) and Chinese (CMRC 2018 contexts); first-load
 * time; the estimator's error and speed.
 */
export async function run(context: BenchContext): Promise<BenchMetric[]> {
  const sets: TextSet[] = [
    { label: 'en', texts: loadLocomoTurns().map((turn) => turn.text) },
    { label: 'zh', texts: loadCmrcParagraphs().map((paragraph) => paragraph.context) },
  ];
  const metrics = measureLoad();
  metrics.push(...measureThroughput(context, sets));
  metrics.push(...measureEstimator(context, loadEstimatorCorpus(), sets));
  return metrics;
}

/** First count of each implementation in this process (one sample: loading happens once). */
function measureLoad(): BenchMetric[] {
  const timeOnce = (load: () => unknown) => {
    const start = performance.now();
    load();
    return performance.now() - start;
  };
  const require = createRequire(import.meta.url);
  const ours = timeOnce(() => createO200kCounter().countText('load'));
  const wasm = timeOnce(() =>
    (require('tiktoken') as { get_encoding(name: string): { encode_ordinary(text: string): Uint32Array } })
      .get_encoding('o200k_base')
      .encode_ordinary('load'),
  );
  return [
    {
      name: 'o200k.first-load.single-run',
      value: ours,
      unit: 'ms',
      peer: { name: 'tiktoken (wasm)', value: wasm },
    },
  ];
}
