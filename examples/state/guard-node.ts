import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { END, START, StateGraph } from '@langchain/langgraph';
import { guardNode, SqliteSaver } from '../../src/runtime/index.ts';
import { Blackboard, type BlackboardState, StateBuilder } from '../../src/state/index.ts';

const saver = new SqliteSaver({ path: join(await mkdtemp(join(tmpdir(), 'state-')), 'state.db') });
const reply = new AIMessage('Hello.');
const graph = new StateGraph(Blackboard.schema)
  .addNode(
    'agent',
    guardNode({
      name: 'agent',
      node: (state: BlackboardState) => {
        const sb = new StateBuilder(state);
        sb.messages.append([reply]);
        return sb.patch();
      },
    }),
  )
  .addEdge(START, 'agent')
  .addEdge('agent', END)
  .compile({ checkpointer: saver });
const config = { configurable: { thread_id: 'user-graph-1' } };
await graph.invoke({ messages: [new HumanMessage({ id: 'u1', content: 'Hi' })] }, config);
console.log((await graph.getState(config)).values.messages.length); // 2

// Unguarded, LangGraph would ignore this typo silently; guarded, the node throws.
const typo = new StateGraph(Blackboard.schema)
  .addNode('agent', guardNode({ name: 'agent', node: () => ({ gaol: 'a typo' }) }))
  .addEdge(START, 'agent')
  .compile();
await typo.invoke({}).catch((error) => console.log(error.code, error.path)); // unknown-state-key gaol
await saver.close();
