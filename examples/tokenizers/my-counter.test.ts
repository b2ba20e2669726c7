import { createTokenCounter } from '../../src/core/index.ts';
import { describeTokenCounterConformance } from '../../src/testing/index.ts';
import { createO200kCounter } from '../../src/tokenizers/index.ts';

// Your own counter: o200k's counts with your provider's message framing.
const o200k = createO200kCounter();
const createMyCounter = () =>
  createTokenCounter({
    name: 'o200k-my-framing',
    exact: true,
    countText: (text) => o200k.countText(text),
    overhead: { perMessage: 4, perName: 1, perRequest: 2, perFile: 85 },
  });

describeTokenCounterConformance('my counter', () => createMyCounter(), { monotone: true });
