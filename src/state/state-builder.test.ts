import { AIMessage, HumanMessage, RemoveMessage, ToolMessage } from '@langchain/core/messages';
import { Overwrite, REMOVE_ALL_MESSAGES } from '@langchain/langgraph';
import { JsonPlusSerializer } from '@langchain/langgraph-checkpoint';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createBlackboard } from './blackboard.ts';
import { timelineReducer } from './reducers.ts';
import { StateBuilder } from './state-builder.ts';
import type { Timeline } from './types.ts';

const fixed = { now: () => 1_700_000_000_000, newId: () => 'generated-id' };

describe('StateBuilder', () => {
  it('writes a replaced history as REMOVE_ALL followed by every message, never as Overwrite', () => {
    const sb = new StateBuilder({ messages: [new HumanMessage({ content: 'old', id: 'a' })] }, fixed);
    sb.messages.replace([new AIMessage({ content: 'summary kept', id: 'b' })]);
    const patch = sb.patch();
    const messages = patch.messages as unknown[];
    expect(patch.messages).not.toBeInstanceOf(Overwrite);
    expect(RemoveMessage.isInstance(messages[0])).toBe(true);
    expect((messages[0] as RemoveMessage).id).toBe(REMOVE_ALL_MESSAGES);
    expect((messages[1] as AIMessage).id).toBe('b');
    expect(messages).toHaveLength(2);
  });

  it('finds the newest human message of the history as its snapshot holds it', () => {
    const call = new AIMessage({
      content: '',
      id: 'c',
      tool_calls: [{ id: 't1', name: 'read_file', args: {} }],
    });
    const messages = [
      new HumanMessage({ content: 'first', id: 'h1' }),
      new AIMessage({ content: 'reply', id: 'a1' }),
      new HumanMessage({ content: 'second', id: 'h2' }),
      call,
      new ToolMessage({ content: 'output', id: 't', tool_call_id: 't1' }),
    ];
    const sb = new StateBuilder({ messages }, fixed);
    expect(sb.messages.newestHuman()?.id).toBe('h2');
    expect(sb.messages.newestHuman()).toBe(
      sb.messages.snapshot().findLast((m) => HumanMessage.isInstance(m)),
    );
    expect(
      new StateBuilder(
        { messages: [new AIMessage({ content: 'x', id: 'a' })] },
        fixed,
      ).messages.newestHuman(),
    ).toBe(undefined);
  });

  it('refuses a removal marker inside an appended delta', () => {
    const sb = new StateBuilder({}, fixed);
    expect(() => sb.messages.append([new RemoveMessage({ id: 'x' })])).toThrow(
      expect.objectContaining({ code: 'reducer-violation' }),
    );
  });

  it('gives messages appended without an id a generated id', () => {
    const sb = new StateBuilder({}, fixed);
    sb.messages.append([new AIMessage({ content: 'hi' })]);
    expect((sb.patch().messages as AIMessage[])[0]?.id).toBe('generated-id');
  });

  it('accepts an input once: a re-sent input id writes nothing', () => {
    const first = new StateBuilder({ session_id: 's1' }, fixed);
    expect(first.messages.acceptInput({ inputId: 'in-1', content: 'hello' })).toBe(true);
    const patch = first.patch();
    const message = (patch.messages as HumanMessage[])[0];
    expect(message?.id).toBe('human:s1:in-1');
    expect(patch.processed_inputs).toEqual(['s1:in-1']);
    const again = new StateBuilder({ session_id: 's1', processed_inputs: ['s1:in-1'], messages: [] }, fixed);
    expect(again.messages.acceptInput({ inputId: 'in-1', content: 'hello' })).toBe(false);
    expect(again.patch()).toEqual({});
  });

  it('clears results once with Overwrite([]) when a plan starts', () => {
    const sb = new StateBuilder({ mapreduce_results: [{ taskId: 'old', status: 'ok', output: 'x' }] }, fixed);
    sb.mapreduce.initPlan({ goal: 'g', understanding: 'u', tasks: [{ id: 't1', description: 'd' }] });
    const patch = sb.patch();
    expect(patch.mapreduce_results).toBeInstanceOf(Overwrite);
    expect((patch.mapreduce_results as Overwrite).value).toEqual([]);
    expect(sb.mapreduce.snapshot().results).toEqual([]);
  });

  it('refuses an append next to a reset, in either order, and a second reset', () => {
    const plan = { goal: 'g', understanding: 'u', tasks: [{ id: 't1', description: 'd' }] };
    const resetFirst = new StateBuilder({}, fixed);
    resetFirst.mapreduce.initPlan(plan);
    expect(() => resetFirst.mapreduce.appendResult({ taskId: 't1', status: 'ok', output: 'o' })).toThrow(
      expect.objectContaining({ code: 'reducer-violation' }),
    );
    const appendFirst = new StateBuilder({}, fixed);
    appendFirst.mapreduce.appendResult({ taskId: 't1', status: 'ok', output: 'o' });
    expect(() => appendFirst.mapreduce.initPlan(plan)).toThrow(
      expect.objectContaining({ code: 'reducer-violation' }),
    );
    const twice = new StateBuilder({}, fixed);
    twice.mapreduce.initPlan(plan);
    expect(() => twice.mapreduce.initPlan(plan)).toThrow(
      expect.objectContaining({ code: 'reducer-violation' }),
    );
  });

  it('ignores a second result for the same task', () => {
    const sb = new StateBuilder(
      { mapreduce_results: [{ taskId: 't1', status: 'ok', output: 'first' }] },
      fixed,
    );
    expect(sb.mapreduce.appendResult({ taskId: 't1', status: 'ok', output: 'again' })).toBe(false);
    expect(sb.mapreduce.appendResult({ taskId: 't2', status: 'ok', output: 'new' })).toBe(true);
    expect(sb.patch().mapreduce_results).toEqual([{ taskId: 't2', status: 'ok', output: 'new' }]);
  });

  it('records a deliverable once however often it is saved', () => {
    const sb = new StateBuilder({ deliverable_keys: ['writer'] }, fixed);
    sb.deliverables.recordSaved('writer');
    sb.deliverables.recordSaved('critic');
    sb.deliverables.recordSaved('critic');
    expect(sb.patch()).toEqual({ deliverable_keys: ['writer', 'critic'] });
  });

  it('clears the active agent and task when an agent finishes', () => {
    const sb = new StateBuilder({ active_agent: 'writer', assigned_task: 'draft' }, fixed);
    sb.routing.finishAgent({ status: 'failed', failureKind: 'model', error: 'timeout' });
    expect(sb.routing.snapshot()).toEqual({
      activeAgent: null,
      assignedTask: null,
      lastAgentStatus: 'failed',
      lastAgentFailureKind: 'model',
      lastAgentError: 'timeout',
    });
  });

  it('counts error retries within one patch', () => {
    const sb = new StateBuilder({ error_retry_count: 2 }, fixed);
    sb.react.incErrorRetry();
    expect(sb.react.incErrorRetry()).toBe(4);
    expect(sb.patch()).toEqual({ error_retry_count: 4 });
  });

  it("gives id-less messages an id that survives serialisation, without changing the caller's object", async () => {
    const given = new AIMessage({ content: 'reply' });
    const sb = new StateBuilder({}, fixed);
    sb.messages.append([given]);
    const replaced = new HumanMessage({ content: 'kept' });
    const sb2 = new StateBuilder({}, fixed);
    sb2.messages.replace([replaced]);
    expect(given.id).toBeUndefined();
    const serde = new JsonPlusSerializer();
    for (const patch of [sb.patch(), sb2.patch()]) {
      const messages = patch.messages as AIMessage[];
      const last = messages[messages.length - 1] as AIMessage;
      expect(last.id).toBe('generated-id');
      const [type, bytes] = await serde.dumpsTyped(last);
      const restored = (await serde.loadsTyped(type, bytes)) as AIMessage;
      expect(restored.id).toBe('generated-id');
      expect(restored.content).toBe(last.content);
    }
  });

  it('writes only the new timeline entries on flush; the reducer yields the whole timeline', () => {
    const stored = { entries: [{ atMs: 1, kind: 'start', text: 'go' }] };
    const sb = new StateBuilder({ timeline: stored }, fixed);
    sb.timeline.append([{ kind: 'agent-finished', text: 'writer done', agentId: 'writer' }]);
    const whole = {
      entries: [
        { atMs: 1, kind: 'start', text: 'go' },
        { atMs: 1_700_000_000_000, kind: 'agent-finished', text: 'writer done', agentId: 'writer' },
      ],
    };
    expect(sb.timeline.snapshot()).toEqual(whole);
    const patch = sb.patch();
    expect(patch.timeline).toEqual({ entries: [whole.entries[1]] });
    expect(timelineReducer(stored, [patch.timeline as Timeline])).toEqual(whole);
  });

  it('writes extension fields and rejects keys the schema does not have', () => {
    const blackboard = createBlackboard({ extensions: { score: z.number().default(0) } });
    const sb = new StateBuilder({ score: 1 }, { ...fixed, blackboard });
    sb.setExtension('score', 2);
    expect(sb.getExtension('score')).toBe(2);
    expect(() => sb.setExtension('scroe', 3)).toThrow(expect.objectContaining({ code: 'unknown-state-key' }));
    expect(() => sb.setExtension('messages', [])).toThrow(
      expect.objectContaining({ code: 'invalid-argument' }),
    );
    expect(sb.patch()).toEqual({ score: 2 });
  });

  it('refuses an extension that collides with a Blackboard field', () => {
    expect(() => createBlackboard({ extensions: { todo: z.string() } })).toThrow(
      expect.objectContaining({ code: 'invalid-config' }),
    );
  });
});
