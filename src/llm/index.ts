export { createModelSummarizer } from './model-summarizer.ts';
export { type Passage, rankPassages, splitPassages } from './offline-answer.ts';
export { createOfflineModel, OFFLINE_HINT, OFFLINE_LABEL } from './offline-model.ts';
export { requirePeer } from './require-peer.ts';
export { type ResolvedModel, resolveModel } from './resolve-model.ts';
