import {
  type BenchContext,
  type BenchSuiteOutput,
  loadCmrcParagraphs,
  loadLocomoTurns,
} from '../lib/index.ts';
import { loadEstimatorCorpus } from './estimator-data.ts';
import { measureEstimator } from './estimator-metrics.ts';
import { measureFirstCount } from './first-count.ts';
import { measureThroughput, type TextSet } from './throughput.ts';

/**
 * Tokenizer suite: o200k counting throughput of ctxloom vs gpt-tokenizer, js-tiktoken and
 * tiktoken (wasm) on English (LoCoMo turns) and Chinese (CMRC 2018 contexts); the time to the
 * first count in a new process; the estimator's error and speed.
 */
export async function run(context: BenchContext): Promise<BenchSuiteOutput> {
  const sets: TextSet[] = [
    { label: 'en', texts: loadLocomoTurns().map((turn) => turn.text) },
    { label: 'zh', texts: loadCmrcParagraphs().map((paragraph) => paragraph.context) },
  ];
  const firstCount = measureFirstCount(context);
  for (const note of firstCount.notes) context.log(note);
  const metrics = [...firstCount.metrics];
  metrics.push(...measureThroughput(context, sets));
  metrics.push(...measureEstimator(context, loadEstimatorCorpus(), sets));
  return { metrics, notes: firstCount.notes };
}
