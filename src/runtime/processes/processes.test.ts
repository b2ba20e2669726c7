import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { openMemoryStore } from '../../sources/memory-store.ts';
import type { BlackboardState } from '../../state/index.ts';
import { createCharCounter } from '../../testing/index.ts';
import { defineAgent } from '../agents/define-agent.ts';
import { SqliteSaver } from '../checkpoint/sqlite-saver.ts';
import { submitInput } from '../session/submit-input.ts';
import { createDynamicProcess } from './dynamic.ts';
import { createHierarchicalProcess } from './hierarchical.ts';
import { createMapReduceProcess } from './mapreduce.ts';
import { prompts, textModel } from './mock-model.test-support.ts';
import { createReactProcess } from './react.ts';
import { createSequentialProcess } from './sequential.ts';

const counter = createCharCounter();
const session = { namespace: 'tests', sessionId: 's' };
const config = (thread: string) => ({ configurable: { thread_id: thread } });

async function stateOf(graph: { getState(c: unknown): Promise<{ values: unknown }> }, thread: string) {
  return (await graph.getState(config(thread))).values as BlackboardState;
}

describe('createSequentialProcess', () => {
  it('runs agents in order, each on the shared history, with private system prompts', async () => {
    const researcherModel = textModel(() => 'facts: the sky is blue');
    const writerModel = textModel(() => 'The sky is blue.');
    const graph = createSequentialProcess({
      counter,
      agents: [
        defineAgent({ id: 'researcher', systemPrompt: 'SECRET researcher prompt', model: researcherModel }),
        defineAgent({ id: 'writer', systemPrompt: 'You write.', model: writerModel, deliverable: true }),
      ],
    }).compile({ checkpointer: new SqliteSaver({ path: ':memory:' }) });
    await submitInput({
      graph,
      config: config('seq'),
      input: { inputId: 'in-1', content: 'why blue?' },
      session,
    });
    const state = await stateOf(graph, 'seq');
    expect(state.messages.map((message) => message.text)).toEqual([
      'why blue?',
      'facts: the sky is blue',
      'The sky is blue.',
    ]);
    const [writerPrompt] = prompts(writerModel);
    expect(writerPrompt).toContain('facts: the sky is blue');
    expect(writerPrompt).not.toContain('SECRET');
    expect(writerPrompt?.match(/why blue\?/g)).toHaveLength(1);
    expect(state.deliverable_keys).toEqual(['writer']);
    expect(state.last_agent_status).toBe('completed');
  });
});

describe('createMapReduceProcess', () => {
  it('plans, fans out one worker per task without history, and reduces without history', async () => {
    const plannerModel = textModel(() =>
      JSON.stringify({
        understanding: 'three parts',
        tasks: [
          { id: 'a', description: 'part A' },
          { id: 'b', description: 'part B' },
          { id: 'c', description: 'part C' },
        ],
      }),
    );
    const workerModel = textModel((prompt) => `result for ${/part [ABC]/.exec(prompt)?.[0]}`);
    const reducerModel = textModel(() => 'combined answer');
    const graph = createMapReduceProcess({
      counter,
      planner: defineAgent({ id: 'planner', systemPrompt: 'Plan.', model: plannerModel }),
      worker: defineAgent({
        id: 'worker',
        systemPrompt: 'Work.',
        framework: 'Answer in one line.',
        model: workerModel,
      }),
      reducer: defineAgent({
        id: 'reducer',
        systemPrompt: 'Reduce.',
        model: reducerModel,
        deliverable: true,
      }),
    }).compile({ checkpointer: new SqliteSaver({ path: ':memory:' }) });
    const thread = 'mr';
    // An earlier turn and a TODO exist: workers must see neither.
    await graph.updateState(
      config(thread),
      {
        messages: [
          new HumanMessage({ content: 'EARLIER question', id: 'h0' }),
          new AIMessage({ content: 'EARLIER answer', id: 'a0' }),
        ],
        todo: { items: [{ id: '1', title: 'TODO-ITEM', status: 'pending' }] },
      },
      'reducer',
    );
    await submitInput({
      graph,
      config: config(thread),
      input: { inputId: 'in-1', content: 'cover A, B, C' },
      session,
    });
    const state = await stateOf(graph, thread);
    expect(state.mapreduce_results.map((result) => result.output).sort()).toEqual([
      'result for part A',
      'result for part B',
      'result for part C',
    ]);
    expect(state.messages.at(-1)?.text).toBe('combined answer');
    expect(state.deliverable_keys).toEqual(['reducer']);
    for (const prompt of prompts(workerModel)) {
      expect(prompt).not.toContain('EARLIER');
      expect(prompt).not.toContain('TODO-ITEM');
      expect(prompt).not.toContain('cover A, B, C');
      expect(prompt).toContain('Answer in one line.');
    }
    for (const prompt of [...prompts(plannerModel), ...prompts(reducerModel)])
      expect(prompt).not.toContain('EARLIER');
    expect(prompts(plannerModel)[0]).toContain('cover A, B, C');
    expect(prompts(reducerModel)[0]).toContain('result for part B');
  });

  it('ends with a validation failure when the planner does not return a plan', async () => {
    const graph = createMapReduceProcess({
      counter,
      planner: defineAgent({ id: 'planner', systemPrompt: 'Plan.', model: textModel(() => 'not json') }),
      worker: defineAgent({ id: 'worker', systemPrompt: 'Work.', model: textModel(() => 'x') }),
      reducer: defineAgent({ id: 'reducer', systemPrompt: 'Reduce.', model: textModel(() => 'y') }),
    }).compile({ checkpointer: new SqliteSaver({ path: ':memory:' }) });
    await submitInput({ graph, config: config('bad'), input: { inputId: 'in-1', content: 'go' }, session });
    const state = await stateOf(graph, 'bad');
    expect(state.last_agent_status).toBe('failed');
    expect(state.last_agent_failure_kind).toBe('validation');
    expect(state.mapreduce_results).toEqual([]);
  });
});

describe('createDynamicProcess', () => {
  it('lets the router pick agents until it finishes, with the task as the agent query', async () => {
    const alpha = textModel(() => 'alpha done');
    const beta = textModel(() => 'beta done');
    const graph = createDynamicProcess({
      counter,
      agents: [
        defineAgent({ id: 'alpha', systemPrompt: 'A', model: alpha }),
        defineAgent({ id: 'beta', systemPrompt: 'B', model: beta }),
      ],
      router: ({ hops }) =>
        hops === 0 ? { agentId: 'alpha' } : hops === 1 ? { agentId: 'beta', task: 'check alpha' } : undefined,
    }).compile({ checkpointer: new SqliteSaver({ path: ':memory:' }) });
    await submitInput({
      graph,
      config: config('dyn'),
      input: { inputId: 'in-1', content: 'start' },
      session,
    });
    const state = await stateOf(graph, 'dyn');
    expect(state.messages.map((message) => message.text)).toEqual(['start', 'alpha done', 'beta done']);
    expect(prompts(beta)[0]).toContain('check alpha');
    expect(state.active_agent).toBeNull();
  });

  it('stops after maxHops even if the router keeps routing', async () => {
    const model = textModel(() => 'again');
    const graph = createDynamicProcess({
      counter,
      maxHops: 3,
      agents: [defineAgent({ id: 'loop', systemPrompt: 'L', model })],
      router: () => ({ agentId: 'loop' }),
    }).compile({ checkpointer: new SqliteSaver({ path: ':memory:' }) });
    await submitInput({ graph, config: config('hops'), input: { inputId: 'in-1', content: 'go' }, session });
    expect(model.calls).toHaveLength(3);
  });
});

describe('createReactProcess', () => {
  it('plans, acts and reflects until DONE, keeping goal and plan in the react fields', async () => {
    const model = textModel((prompt, index) => {
      if (index === 0) return '1. look up\n2. answer';
      if (prompt.includes('Reply DONE')) return index >= 4 ? 'DONE' : 'not yet: add detail';
      return `answer v${index}`;
    });
    const graph = createReactProcess({
      counter,
      agent: defineAgent({ id: 'solver', systemPrompt: 'Solve.', model }),
    }).compile({
      checkpointer: new SqliteSaver({ path: ':memory:' }),
    });
    await submitInput({
      graph,
      config: config('react'),
      input: { inputId: 'in-1', content: 'solve it' },
      session,
    });
    const state = await stateOf(graph, 'react');
    expect(state.goal).toBe('solve it');
    expect(state.plan).toEqual(['look up', 'answer']);
    expect(state.reflection).toBe('DONE');
    expect(state.messages.map((message) => message.text)).toEqual(['solve it', 'answer v1', 'answer v3']);
  });

  it('gives up after the error-retry budget when acting keeps failing', async () => {
    let calls = 0;
    const model = textModel((_prompt, index) => {
      calls += 1;
      if (index === 0) return 'step';
      throw new Error('provider down');
    });
    const graph = createReactProcess({
      counter,
      maxErrorRetries: 2,
      agent: defineAgent({ id: 'solver', systemPrompt: 'Solve.', model }),
    }).compile({ checkpointer: new SqliteSaver({ path: ':memory:' }) });
    await submitInput({
      graph,
      config: config('react-fail'),
      input: { inputId: 'in-1', content: 'x' },
      session,
    });
    const state = await stateOf(graph, 'react-fail');
    expect(state.error_retry_count).toBe(3);
    expect(state.last_agent_status).toBe('failed');
    expect(calls).toBe(4);
  });
});

describe('createHierarchicalProcess', () => {
  it('delegates to a sub-agent that works on the parent memory, then answers', async () => {
    const manager = textModel((_prompt, index) =>
      index === 0 ? 'DELEGATE researcher: find the date' : 'It was 1969.',
    );
    const researcher = textModel(() => 'The landing was in 1969.');
    const graph = createHierarchicalProcess({
      counter,
      manager: defineAgent({ id: 'manager', systemPrompt: 'Manage.', model: manager }),
      subAgents: [defineAgent({ id: 'researcher', systemPrompt: 'Research.', model: researcher })],
    }).compile({ checkpointer: new SqliteSaver({ path: ':memory:' }) });
    await submitInput({
      graph,
      config: config('h'),
      input: { inputId: 'in-1', content: 'when was the moon landing?' },
      session,
    });
    const state = await stateOf(graph, 'h');
    expect(state.messages.map((message) => message.text)).toEqual([
      'when was the moon landing?',
      'The landing was in 1969.',
      'It was 1969.',
    ]);
    const [researcherPrompt] = prompts(researcher);
    expect(researcherPrompt).toContain('when was the moon landing?');
    expect(researcherPrompt).toContain('find the date');
    expect(prompts(manager)[1]).toContain('The landing was in 1969.');
  });

  it('lets sub-agents read the manager memory through InheritedSource instead of the history', async () => {
    const parent = openMemoryStore({ agentId: 'manager', sessionId: 's' });
    await parent.append([
      { id: 'm1', role: 'user', content: 'Remember: the budget is 40k EUR, a hard limit.' },
    ]);
    await parent.mark('m1', true);
    const manager = textModel((_prompt, index) =>
      index === 0 ? 'DELEGATE planner: draft the plan' : 'Plan ready.',
    );
    const planner = textModel(() => 'Plan within 40k.');
    const graph = createHierarchicalProcess({
      counter,
      parentMemory: parent.view(),
      manager: defineAgent({ id: 'manager', systemPrompt: 'Manage.', model: manager }),
      subAgents: [defineAgent({ id: 'planner', systemPrompt: 'Plan.', model: planner })],
    }).compile({ checkpointer: new SqliteSaver({ path: ':memory:' }) });
    await submitInput({
      graph,
      config: config('inherit'),
      input: { inputId: 'in-1', content: 'UNSEEN chat line' },
      session,
    });
    const [plannerPrompt] = prompts(planner);
    expect(plannerPrompt).toContain('(from manager) user: Remember: the budget is 40k EUR');
    expect(plannerPrompt).toContain('draft the plan');
    expect(plannerPrompt).not.toContain('UNSEEN chat line');
    parent.close();
  });
});
