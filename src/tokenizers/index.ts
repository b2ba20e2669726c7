export { type EncodingName, isEncodingLoaded } from './encodings.ts';
export { createEstimatorCounter, type EstimatorCounterOptions } from './estimator-counter.ts';
export {
  createCl100kCounter,
  createExactCounter,
  createO200kCounter,
  type ExactCounterOptions,
  type ExactTokenCounter,
} from './exact-counter.ts';
export { type GetTokenCounterOptions, getTokenCounter } from './get-token-counter.ts';
export {
  type ModelFamily,
  resolveTokenizer,
  type TokenizerKind,
  type TokenizerResolution,
} from './resolve-tokenizer.ts';
export type { ScriptFeatures } from './script-features.ts';
