export { createCharCounter } from './char-counter.ts';
export {
  type ContextSourceConformanceOptions,
  describeContextSourceConformance,
} from './context-source-conformance.ts';
export { describeEmbedderConformance } from './embedder-conformance.ts';
export {
  describeSessionStoreConformance,
  type SessionStoreConformanceOptions,
} from './session-store-conformance.ts';
export {
  describeTokenCounterConformance,
  type TokenCounterConformanceOptions,
} from './token-counter-conformance.ts';
