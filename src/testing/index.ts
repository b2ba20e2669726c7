export { createCharCounter } from './char-counter.ts';
export {
  describeTokenCounterConformance,
  type TokenCounterConformanceOptions,
} from './token-counter-conformance.ts';
