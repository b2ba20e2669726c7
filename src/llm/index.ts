export { createModelSummarizer } from './model-summarizer.ts';
export { createOfflineModel, OFFLINE_HINT } from './offline-model.ts';
export { type ResolvedModel, resolveModel } from './resolve-model.ts';
