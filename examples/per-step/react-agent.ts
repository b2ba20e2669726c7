import { HumanMessage } from '@langchain/core/messages';
import { MemorySaver } from '@langchain/langgraph';
import { createReactAgent } from '../../src/runtime/index.ts';
import { getTokenCounter } from '../../src/tokenizers/index.ts';
import { openai, reports, tools } from './recipe-environment.ts';

// The agent adds open_artifact to `tools`, on its own store, and counts both.
const graph = createReactAgent({
  model: openai('gpt-4o'),
  tools,
  systemPrompt: 'You review ETL jobs.',
  counter: getTokenCounter('gpt-4o'),
  window: 128_000,
  onCompile: ({ report }) => void reports.push(report),
}).compile({ checkpointer: new MemorySaver() });
const { messages } = await graph.invoke(
  { messages: [new HumanMessage('Review etl.md')] },
  { configurable: { thread_id: 'review-1' } },
);
console.log(messages.at(-1)?.content);
