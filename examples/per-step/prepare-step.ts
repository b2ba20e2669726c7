import { generateText, stepCountIs } from 'ai';
import { ctxloomPrepareStep } from '../../src/ai-sdk/index.ts';
import { getTokenCounter } from '../../src/tokenizers/index.ts';
import { messages, openai, reports, tools } from './recipe-environment.ts';

const prepareStep = ctxloomPrepareStep({
  counter: getTokenCounter('gpt-4o'),
  window: 128_000,
  tools,
  onCompile: ({ report }) => void reports.push(report),
});
// Each step gets compiled `instructions`, `messages` and `maxOutputTokens`. Pass
// `prepareStep.tools`: your tools plus open_artifact (on `prepareStep.store`), all counted.
const result = await generateText({
  model: openai('gpt-4o'),
  tools: prepareStep.tools,
  prepareStep,
  stopWhen: stepCountIs(8),
  messages,
});
console.log(
  result.text,
  reports.map((report) => report.totalTokens),
);
