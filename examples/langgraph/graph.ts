/**
 * A ctxloom process as a LangGraph graph for the LangGraph CLI / Studio (`langgraph.json` in
 * `examples/`): a sequential process with one agent on the offline model (no network, no
 * key; set up a real AI SDK model in your own graph). The platform supplies the
 * checkpointer, so the graph is compiled without one. Its state schema is the Blackboard,
 * whose `messages` field carries `langgraph_type: "messages"` for Studio's chat view.
 */
import { createOfflineModel } from '../../src/llm/index.ts';
import { createSequentialProcess, defineAgent } from '../../src/runtime/index.ts';

export const graph = createSequentialProcess({
  agents: [
    defineAgent({
      id: 'assistant',
      systemPrompt: 'You answer from the context you are given.',
      model: createOfflineModel(),
    }),
  ],
}).compile({ name: 'ctxloom-sequential' });
