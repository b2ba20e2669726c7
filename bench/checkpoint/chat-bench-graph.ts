import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { type BaseCheckpointSaver, MessagesValue, StateGraph, StateSchema } from '@langchain/langgraph';
import { z } from 'zod';
import { Blackboard, type BlackboardState, StateBuilder } from '../../src/state/index.ts';

/** A compiled two-node chat graph as the benchmark drives it. */
export interface BenchGraph {
  /** Runs one turn: the user message in, the assistant reply out. */
  turn(index: number): Promise<void>;
  /** `graph.getState()` of the thread: the full resume, delta channels replayed. */
  resume(): Promise<BaseMessage[]>;
  config: { configurable: { thread_id: string } };
}

/**
 * The benchmark graph: assistant (appends a 500-character reply) → bookkeeping (records the
 * turn), on ctxloom's Blackboard (`messages` is a delta channel). Every saver under test
 * runs this same graph.
 */
export function blackboardChat(options: {
  saver: BaseCheckpointSaver;
  texts: readonly string[];
  thread: string;
}): BenchGraph {
  const graph = new StateGraph(Blackboard.schema)
    .addNode('assistant', (state: BlackboardState) => {
      const sb = new StateBuilder(state);
      // The turn's user message is already in memory: 2·turn + 1 messages.
      const turn = Math.floor(sb.messages.snapshot().length / 2);
      sb.messages.append([new AIMessage({ content: options.texts[turn * 2 + 1] ?? '', id: `ai-${turn}` })]);
      return sb.patch();
    })
    .addNode('bookkeeping', (state: BlackboardState) => {
      const sb = new StateBuilder(state, { now: () => 0 });
      sb.routing.finishAgent({ status: 'completed' });
      return sb.patch();
    })
    .addEdge('__start__', 'assistant')
    .addEdge('assistant', 'bookkeeping')
    .addEdge('bookkeeping', '__end__')
    .compile({ checkpointer: options.saver });
  const config = { configurable: { thread_id: options.thread } };
  return {
    config,
    async turn(index) {
      const sb = new StateBuilder({ session_id: options.thread, processed_inputs: [] });
      sb.messages.acceptInput({ inputId: `in-${index}`, content: options.texts[index * 2] ?? '' });
      await graph.invoke(sb.patch(), config);
    },
    async resume() {
      return ((await graph.getState(config)).values as BlackboardState).messages;
    },
  };
}

/**
 * The same conversation on LangGraph's standard `MessagesValue` (a plain reducer channel):
 * what a LangGraph user gets by default, stored at every step in full.
 */
export function standardChat(options: {
  saver: BaseCheckpointSaver;
  texts: readonly string[];
  thread: string;
}): BenchGraph {
  const State = new StateSchema({ messages: MessagesValue, turns: z.number().default(0) });
  const graph = new StateGraph(State)
    .addNode('assistant', (state) => {
      const turn = Math.floor(state.messages.length / 2);
      return { messages: [new AIMessage({ content: options.texts[turn * 2 + 1] ?? '', id: `ai-${turn}` })] };
    })
    .addNode('bookkeeping', (state) => ({ turns: state.turns + 1 }))
    .addEdge('__start__', 'assistant')
    .addEdge('assistant', 'bookkeeping')
    .addEdge('bookkeeping', '__end__')
    .compile({ checkpointer: options.saver });
  const config = { configurable: { thread_id: options.thread } };
  return {
    config,
    async turn(index) {
      await graph.invoke(
        { messages: [new HumanMessage({ content: options.texts[index * 2] ?? '', id: `h-${index}` })] },
        config,
      );
    },
    async resume() {
      return (await graph.getState(config)).values.messages;
    },
  };
}
