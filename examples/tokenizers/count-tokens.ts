import { createEstimatorCounter, getTokenCounter, resolveTokenizer } from '../../src/tokenizers/index.ts';

const counter = getTokenCounter('openai:gpt-4o'); // exact o200k_base, cached by content hash
console.log(counter.countText('上下文工程')); // 3
console.log(counter.countMessages([{ id: '1', role: 'user', content: 'Hi' }])); // 3 + 1 + 1 + 3 = 8

console.log(resolveTokenizer('claude-sonnet-4-5'));
// { model: 'claude-sonnet-4-5', family: 'anthropic', tokenizer: 'estimate', reason: '…' }
const estimator = createEstimatorCounter(); // what getTokenCounter('claude-sonnet-4-5') counts with
console.log(estimator.countText('上下文工程')); // 5: five Han ideographs × 0.8939 × bias 1.06, rounded up
