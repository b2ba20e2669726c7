import { END, MemorySaver, START, StateGraph } from '@langchain/langgraph';
import { formatThreadId, registerArtifact } from '../../src/compression/index.ts';
import {
  CompressionStateModule,
  createCheckpointCompressionStore,
  createCompressionBlackboard,
} from '../../src/runtime/index.ts';
import { type BlackboardState, StateBuilder } from '../../src/state/index.ts';

const threadId = formatThreadId({ app: 'etl', userId: 'alice', sessionId: 'window-1' }); // = thread_id
const blackboard = createCompressionBlackboard(); // Blackboard + compression fields
const node = (state: BlackboardState) => {
  const sb = new StateBuilder(state, { blackboard });
  const compression = new CompressionStateModule(sb); // implements CompressionStore
  compression.update(threadId, (current) => ({
    ...current,
    artifacts: registerArtifact(current.artifacts, {
      kind: 'plan',
      name: 'orders_daily',
      agentId: 'planner',
      content: '{"jobs":["orders_daily"],"schedule":"0 2 * * *"}',
      turnIndex: 0,
    }).state,
  })); // revision-checked
  const question = 'Daily or hourly partitions?';
  compression.openRequest({ id: 'r1', kind: 'human', status: 'pending', createdBy: 'planner', question });
  return sb.patch(); // the node's one patch
};
const graph = new StateGraph(blackboard.schema)
  .addNode('planner', node)
  .addEdge(START, 'planner')
  .addEdge('planner', END)
  .compile({ checkpointer: new MemorySaver() });
const config = { configurable: { thread_id: threadId } };
await graph.invoke({}, config);
console.log((await graph.getState(config)).values.compression_coordination.pendingRequests); // r1

const store = createCheckpointCompressionStore({ graph, blackboard }); // outside nodes (CLI, HTTP)
const state = await store.load(threadId);
const ids = state?.artifacts.index.artifacts.map((entry) => entry.id);
console.log(state?.revision, ids); // 0 [ 'plan:orders_daily@v1' ]
if (state !== undefined) {
  await store.save(state, { expectedRevision: 7 }).catch((error) => console.log(error.code)); // conflict
}
