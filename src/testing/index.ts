export { createCharCounter } from './char-counter.ts';
