import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { StateGraph } from '@langchain/langgraph';
import { afterAll, describe, expect, it } from 'vitest';
import { Blackboard, type BlackboardState, StateBuilder } from '../../state/index.ts';
import { SqliteSaver } from '../checkpoint/sqlite-saver.ts';
import { submitInput } from '../session/submit-input.ts';

const directory = mkdtempSync(join(tmpdir(), 'ctxloom-chat-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** A one-agent chat graph; `failOnce` makes the agent throw the first time it sees that input. */
function chatGraph(saver: SqliteSaver, failOnce = new Set<string>()) {
  return new StateGraph(Blackboard.schema)
    .addNode('agent', (state: BlackboardState) => {
      const sb = new StateBuilder(state);
      const history = sb.messages.snapshot();
      const last = history.at(-1);
      const text = String(last?.content ?? '');
      if (failOnce.delete(text)) throw new Error(`model unavailable for ${text}`);
      sb.messages.append([new AIMessage({ content: `echo: ${text}`, id: `ai:${last?.id}` })]);
      sb.routing.finishAgent({ status: 'completed' });
      return sb.command();
    })
    .addEdge('__start__', 'agent')
    .addEdge('agent', '__end__')
    .compile({ checkpointer: saver });
}

function humanIds(state: unknown): string[] {
  return ((state as BlackboardState).messages as BaseMessage[])
    .filter((message) => HumanMessage.isInstance(message))
    .map((message) => message.id as string);
}

describe('a chat on the Blackboard with the SQLite saver', () => {
  const session = { namespace: 'tests', sessionId: 'chat-1' };

  it('continues after a restore in a new process without duplicating any HumanMessage', async () => {
    const path = join(directory, 'restore.db');
    const config = { configurable: { thread_id: 'chat-1' } };
    const first = new SqliteSaver({ path });
    await submitInput({
      graph: chatGraph(first),
      config,
      input: { inputId: 'in-1', content: 'hello' },
      session,
    });
    await first.close();

    // A new saver and graph stand in for a restarted server.
    const second = new SqliteSaver({ path });
    const graph = chatGraph(second);
    await submitInput({ graph, config, input: { inputId: 'in-2', content: 'how are you' }, session });
    const retried = await submitInput({
      graph,
      config,
      input: { inputId: 'in-2', content: 'how are you' },
      session,
    });
    expect(retried.accepted).toBe(false);
    const state = (await graph.getState(config)).values as BlackboardState;
    expect(humanIds(state)).toEqual(['human:chat-1:in-1', 'human:chat-1:in-2']);
    expect(state.messages.map((message) => message.content)).toEqual([
      'hello',
      'echo: hello',
      'how are you',
      'echo: how are you',
    ]);
    await second.close();
  });

  it('resumes a turn whose agent failed with invoke(null), keeping the input once', async () => {
    const saver = new SqliteSaver({ path: join(directory, 'resume.db') });
    const config = { configurable: { thread_id: 'chat-2' } };
    const graph = chatGraph(saver, new Set(['flaky']));
    await expect(
      submitInput({ graph, config, input: { inputId: 'in-1', content: 'flaky' }, session }),
    ).rejects.toThrow(/model unavailable/);
    await graph.invoke(null, config);
    const state = (await graph.getState(config)).values as BlackboardState;
    expect(humanIds(state)).toEqual(['human:chat-1:in-1']);
    expect(state.messages.at(-1)?.content).toBe('echo: flaky');
    await saver.close();
  });

  it('treats a re-sent input as processed even after the history was compacted with REMOVE_ALL', async () => {
    const saver = new SqliteSaver({ path: join(directory, 'compact.db') });
    const config = { configurable: { thread_id: 'chat-3' } };
    const graph = chatGraph(saver);
    await submitInput({ graph, config, input: { inputId: 'in-1', content: 'first' }, session });
    const compacted = new StateBuilder((await graph.getState(config)).values as BlackboardState);
    compacted.compression.persistCompression('The user said first.');
    compacted.messages.replace([]);
    await graph.updateState(config, compacted.patch(), 'agent');
    const resent = await submitInput({
      graph,
      config,
      input: { inputId: 'in-1', content: 'first' },
      session,
    });
    expect(resent.accepted).toBe(false);
    const state = (await graph.getState(config)).values as BlackboardState;
    expect(state.messages).toEqual([]);
    expect(state.compression__context).toBe('The user said first.');
    await saver.close();
  });
});
