import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { END, MemorySaver, START, StateGraph } from '@langchain/langgraph';
import { Blackboard, type BlackboardState, StateBuilder } from '../../src/state/index.ts';

const reply = new AIMessage('Here are the release notes.'); // no id: append gives it one
const node = (state: BlackboardState) => {
  const sb = new StateBuilder(state); // read: sb.<module>.snapshot()
  sb.messages.append([reply]); // write: use-case methods only
  sb.deliverables.recordSaved('writer');
  sb.routing.finishAgent({ status: 'completed' });
  sb.timeline.append([{ kind: 'agent-finished', text: 'writer done' }]);
  return sb.command(); // one patch: Command({ update: sb.patch() })
};

const graph = new StateGraph(Blackboard.schema)
  .addNode('writer', node)
  .addEdge(START, 'writer')
  .addEdge('writer', END)
  .compile({ checkpointer: new MemorySaver() });
export const state = await graph.invoke(
  { messages: [new HumanMessage({ id: 'u1', content: 'Write the release notes.' })] },
  { configurable: { thread_id: 'notes-1' } },
);
console.log(state.messages.map((message) => message.id));
console.log(state.deliverable_keys, state.last_agent_status, state.timeline.entries.at(-1)?.text);
