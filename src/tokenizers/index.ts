export { ENCODING_NAMES, type EncodingName, isEncodingLoaded } from './encodings.ts';
export {
  createEstimatorCounter,
  DEFAULT_ESTIMATOR_BIAS,
  type EstimateTokensInput,
  type EstimatorCounterOptions,
  estimateTokens,
} from './estimator-counter.ts';
export { ESTIMATOR_RATES } from './estimator-rates.ts';
export {
  createCl100kCounter,
  createExactCounter,
  createO200kCounter,
  type ExactCounterOptions,
  type ExactTokenCounter,
} from './exact-counter.ts';
export { createCounterFor, type GetTokenCounterOptions, getTokenCounter } from './get-token-counter.ts';
export {
  type ModelFamily,
  resolveTokenizer,
  type TokenizerKind,
  type TokenizerResolution,
} from './resolve-tokenizer.ts';
export { extractScriptFeatures, type ScriptFeatures } from './script-features.ts';
