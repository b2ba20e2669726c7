import { withTokenCache } from '../core/index.ts';
import { createCharCounter } from './char-counter.ts';
import { describeTokenCounterConformance } from './token-counter-conformance.ts';

describeTokenCounterConformance('chars', () => createCharCounter());
describeTokenCounterConformance('chars (cached)', () => withTokenCache(createCharCounter()));
