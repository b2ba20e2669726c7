import { createOrchestrator } from '../../src/core/index.ts';
import { createO200kCounter } from '../../src/tokenizers/index.ts';
import { measureAsync } from './measure-async.ts';
import { buildSession } from './session.ts';

const s = buildSession(createO200kCounter());
const o = createOrchestrator({ counter: createO200kCounter(), window: 128_000 });
const history = [...s.history];
await o.build({ systemPrompt: s.systemPrompt, history, blocks: s.knowledge, query: s.query });
let i = 0;
const [m] = await measureAsync(
  [
    {
      name: 'warm',
      setup: () => {
        history.push({ id: `n${i}`, role: 'user', content: `new ${i++}` });
      },
      run: () => o.build({ systemPrompt: s.systemPrompt, history, blocks: s.knowledge, query: s.query }),
    },
  ],
  { runs: 9 },
);
console.log('with gc():', m?.samplesMs.map((x) => x.toFixed(1)).join(' '));
const t = [];
for (let k = 0; k < 9; k++) {
  history.push({ id: `x${k}`, role: 'user', content: `new x${k}` });
  const t0 = performance.now();
  await o.build({ systemPrompt: s.systemPrompt, history, blocks: s.knowledge, query: s.query });
  t.push((performance.now() - t0).toFixed(1));
}
console.log('no gc():  ', t.join(' '));
