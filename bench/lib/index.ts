export type { BenchContext, BenchSuite, BenchSuiteOutput } from './context.ts';
export {
  type CmrcParagraph,
  dataDirectory,
  type LocomoTurn,
  loadCmrcParagraphs,
  loadLocomoTurns,
} from './data.ts';
export { formatBenchResult, higherIsBetter, peerRatio } from './format.ts';
export {
  type AsyncBenchCandidate,
  type BenchCandidate,
  type Measurement,
  type MeasureOptions,
  measureInterleaved,
  measureInterleavedAsync,
  median,
  megabytesPerSecond,
  type SpeedProbe,
  speedProbe,
} from './measure.ts';
export {
  type BenchMetric,
  type BenchResult,
  createBenchResult,
  RESULTS_DIRECTORY,
  writeBenchResult,
} from './result.ts';
