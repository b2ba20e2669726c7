import { AIMessageChunk, HumanMessage } from '@langchain/core/messages';
import { MemorySaver } from '@langchain/langgraph';
import { createReactAgent } from '../../src/runtime/index.ts';
import { getTokenCounter } from '../../src/tokenizers/index.ts';
import { openai, tools } from './recipe-environment.ts';

const graph = createReactAgent({
  model: openai('gpt-4o'),
  tools,
  counter: getTokenCounter('gpt-4o'),
  window: 128_000,
}).compile({ checkpointer: new MemorySaver() });
// Token chunks as the model sends them (tool calls as tool-call chunks), then the tool results.
for await (const [chunk] of await graph.stream(
  { messages: [new HumanMessage('Review etl.md')] },
  { configurable: { thread_id: 'review-2' }, streamMode: 'messages' },
)) {
  if (AIMessageChunk.isInstance(chunk)) process.stdout.write(chunk.text);
}
