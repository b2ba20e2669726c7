import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { MemorySaver, Overwrite } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { StateBuilder } from '../../state/index.ts';
import { guardNode } from './node-guard.ts';
import { createProcessGraph } from './process-graph.ts';

const keys = new Set(['messages', 'mapreduce_results', 'timeline', 'processed_inputs', 'goal']);
const state = () => ({
  messages: [new HumanMessage({ content: 'hi', id: 'h1' })],
  mapreduce_results: [],
  goal: null,
});

describe('guardNode', () => {
  it('rejects an update with a key the Blackboard does not have', async () => {
    const node = guardNode({ name: 'n', node: () => ({ gaol: 'typo' }), keys });
    await expect(node(state())).rejects.toMatchObject({ code: 'unknown-state-key', path: 'gaol' });
  });

  it('rejects Overwrite of messages, and of mapreduce_results with anything but []', async () => {
    const overwriteMessages = guardNode({ name: 'n', node: () => ({ messages: new Overwrite([]) }), keys });
    await expect(overwriteMessages(state())).rejects.toMatchObject({
      code: 'reducer-violation',
      path: 'messages',
    });
    const overwriteResults = guardNode({
      name: 'n',
      node: () => ({ mapreduce_results: new Overwrite([{ taskId: 'a' }]) }),
      keys,
    });
    await expect(overwriteResults(state())).rejects.toMatchObject({ code: 'reducer-violation' });
    const reset = guardNode({ name: 'n', node: () => ({ mapreduce_results: new Overwrite([]) }), keys });
    await expect(reset(state())).resolves.toBeDefined();
  });

  it('rejects in-place mutation of state.messages (frozen outside production)', async () => {
    const pushes = guardNode({
      name: 'n',
      node: (input) => {
        (input.messages as AIMessage[]).push(new AIMessage({ content: 'sneaky', id: 'a1' }));
        return {};
      },
      keys,
    });
    await expect(pushes(state())).rejects.toMatchObject({ code: 'reducer-violation' });
  });

  it('catches in-place mutation in production too, after the node', async () => {
    const previous = process.env.NODE_ENV;
    process.env.NODE_ENV = 'production';
    try {
      const pushes = guardNode({
        name: 'n',
        node: (input) => {
          (input.mapreduce_results as unknown[]).push({ taskId: 'x' });
          return {};
        },
        keys,
      });
      await expect(pushes(state())).rejects.toMatchObject({
        code: 'reducer-violation',
        path: 'mapreduce_results',
      });
    } finally {
      process.env.NODE_ENV = previous;
    }
  });

  it('lets StateBuilder patches through unchanged', async () => {
    const node = guardNode({
      name: 'n',
      node: (input) => {
        const sb = new StateBuilder(input);
        sb.messages.append([new AIMessage({ content: 'ok', id: 'a1' })]);
        sb.timeline.append([{ kind: 'k', text: 't' }]);
        return sb.patch();
      },
      keys: new Set([...keys, 'active_agent']),
    });
    const patch = (await node(state())) as { messages: AIMessage[] };
    expect(patch.messages.map((message) => message.id)).toEqual(['a1']);
  });

  it('guards every node of a process graph', async () => {
    const graph = createProcessGraph()
      .addNode('bad', () => ({ not_a_field: 1 }))
      .addEdge('__start__', 'bad')
      .addEdge('bad', '__end__')
      .compile({ checkpointer: new MemorySaver() });
    await expect(graph.invoke({}, { configurable: { thread_id: 'g' } })).rejects.toMatchObject({
      code: 'unknown-state-key',
    });
  });
});
