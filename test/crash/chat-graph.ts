import { AIMessage } from '@langchain/core/messages';
import { StateGraph } from '@langchain/langgraph';
import { SqliteSaver } from '../../src/runtime/checkpoint/sqlite-saver.ts';
import { Blackboard, type BlackboardState, StateBuilder } from '../../src/state/index.ts';

/** Turns each child sends before it is killed at the latest. */
export const MAX_TURNS = 10_000;

/** The graph the crash test kills: agent (reply) → bookkeeping (timeline), every write through StateBuilder. */
export function openChat(path: string) {
  const saver = new SqliteSaver({ path, durability: 'normal' });
  const graph = new StateGraph(Blackboard.schema)
    .addNode('agent', (state: BlackboardState) => {
      const sb = new StateBuilder(state);
      const last = sb.messages.snapshot().at(-1);
      sb.messages.append([
        new AIMessage({ content: `echo: ${String(last?.content)}`, id: `ai:${last?.id}` }),
      ]);
      return sb.patch();
    })
    .addNode('bookkeeping', (state: BlackboardState) => {
      const sb = new StateBuilder(state, { now: () => 0 });
      sb.timeline.append([{ kind: 'turn', text: String(sb.messages.snapshot().length) }]);
      sb.routing.finishAgent({ status: 'completed' });
      return sb.patch();
    })
    .addEdge('__start__', 'agent')
    .addEdge('agent', 'bookkeeping')
    .addEdge('bookkeeping', '__end__')
    .compile({ checkpointer: saver });
  return { saver, graph, config: { configurable: { thread_id: 'crash' } } };
}
