import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { END, Overwrite, START, StateGraph } from '@langchain/langgraph';
import { afterAll, describe, expect, it } from 'vitest';
import { Blackboard, type BlackboardState, createBlackboard, StateBuilder } from '../../state/index.ts';
import { guardNode, SqliteSaver } from '../index.ts';

// Issue 27, item 10: seed 002's rules on a user's own StateGraph over the Blackboard, through
// what `ctxloom/runtime` exports.
const directory = mkdtempSync(join(tmpdir(), 'ctxloom-user-graph-'));
const saver = new SqliteSaver({ path: join(directory, 'state.db'), durability: 'normal' });
afterAll(async () => {
  await saver.close();
  rmSync(directory, { recursive: true, force: true });
});

type Node = (state: BlackboardState) => unknown;
let thread = 0;

/** A one-node user graph on the Blackboard, the node guarded or not, run once on a fresh thread. */
async function runOnce(node: Node, guarded: boolean) {
  const graph = new StateGraph(Blackboard.schema)
    .addNode('mine', (guarded ? guardNode({ name: 'mine', node }) : node) as never)
    .addEdge(START, 'mine')
    .addEdge('mine', END)
    .compile({ checkpointer: saver });
  thread += 1;
  const config = { configurable: { thread_id: `user-${thread}` } };
  await graph.invoke({ messages: [new HumanMessage({ content: 'hi', id: 'h1' })] }, config);
  return ((await graph.getState(config)).values as BlackboardState).messages.map((message) => message.id);
}

const unknownKey: Node = () => ({ gaol: 'a typo' });
const overwriteMessages: Node = () => ({
  messages: new Overwrite([new AIMessage({ content: 'x', id: 'a1' })]),
});
const pushMessages: Node = (state) => {
  state.messages.push(new AIMessage({ content: 'sneaky', id: 'a1' }));
  return {};
};

describe('guardNode on a user StateGraph over the Blackboard', () => {
  it('is needed: unguarded, LangGraph accepts an unknown key, an Overwrite of messages and an in-place push', async () => {
    expect(await runOnce(unknownKey, false)).toEqual(['h1']);
    expect(await runOnce(overwriteMessages, false)).toEqual(['a1']);
    // The push is seen by nothing: the checkpoint holds the input alone.
    expect(await runOnce(pushMessages, false)).toEqual(['h1']);
  });

  it('refuses an unknown key with unknown-state-key naming it', async () => {
    await expect(runOnce(unknownKey, true)).rejects.toMatchObject({
      code: 'unknown-state-key',
      path: 'gaol',
    });
  });

  it('refuses an Overwrite of messages with reducer-violation', async () => {
    await expect(runOnce(overwriteMessages, true)).rejects.toMatchObject({
      code: 'reducer-violation',
      path: 'messages',
    });
  });

  it('refuses state.messages.push with reducer-violation, frozen or not', async () => {
    await expect(runOnce(pushMessages, true)).rejects.toMatchObject({ code: 'reducer-violation' });
    const previous = process.env.NODE_ENV;
    process.env.NODE_ENV = 'production';
    try {
      await expect(runOnce(pushMessages, true)).rejects.toMatchObject({
        code: 'reducer-violation',
        path: 'messages',
      });
    } finally {
      process.env.NODE_ENV = previous;
    }
  });

  it('lets a StateBuilder patch through and stores it', async () => {
    const node: Node = (state) => {
      const sb = new StateBuilder(state);
      sb.messages.append([new AIMessage({ content: 'hello', id: 'a1' })]);
      return sb.patch();
    };
    expect(await runOnce(node, true)).toEqual(['h1', 'a1']);
  });

  it('checks against the graph’s own Blackboard when given one', async () => {
    const blackboard = createBlackboard({ extensions: { notes: Blackboard.schema.fields.goal } });
    const node = guardNode({ name: 'mine', node: () => ({ notes: 'kept' }), blackboard });
    await expect(node({})).resolves.toEqual({ notes: 'kept' });
    await expect(guardNode({ name: 'mine', node: () => ({ notes: 'x' }) })({})).rejects.toMatchObject({
      code: 'unknown-state-key',
    });
  });
});
