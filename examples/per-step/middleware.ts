import { generateText, stepCountIs, wrapLanguageModel } from 'ai';
import { ctxloomMiddleware, openArtifactTool } from '../../src/ai-sdk/index.ts';
import { getTokenCounter } from '../../src/tokenizers/index.ts';
import { messages, openai, reports, tools } from './recipe-environment.ts';

const middleware = ctxloomMiddleware({
  counter: getTokenCounter('gpt-4o'),
  window: 128_000,
  onCompile: ({ report }) => void reports.push(report),
});
const model = wrapLanguageModel({ model: openai('gpt-4o'), middleware });
const result = await generateText({
  model,
  // open_artifact reads the outputs the placeholders name, from the middleware's store.
  tools: { ...tools, open_artifact: openArtifactTool(middleware.store) },
  stopWhen: stepCountIs(8),
  messages,
});
console.log(
  result.text,
  reports.map((report) => report.totalTokens),
);
