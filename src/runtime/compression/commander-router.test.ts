import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { formatThreadId, type RequirementTodoState } from '../../compression/index.ts';
import { CtxloomError } from '../../core/errors.ts';
import { type AgentDescriptor, createModelRouter, DEFAULT_ROUTER_CONFIG } from '../../routing/index.ts';
import { StateBuilder } from '../../state/index.ts';
import { createCharCounter } from '../../testing/index.ts';
import { defineAgent } from '../agents/define-agent.ts';
import { SqliteSaver } from '../checkpoint/sqlite-saver.ts';
import { createDynamicProcess } from '../processes/dynamic.ts';
import { prompts, textModel } from '../processes/mock-model.test-support.ts';
import { submitInput } from '../session/submit-input.ts';
import { createCommanderRouter } from './commander-router.ts';
import { createCompressionBlackboard } from './compression-blackboard.ts';
import { compressionSources, createCompressionCompactStage } from './compression-compact-stage.ts';
import { CompressionStateModule } from './compression-state-module.ts';

const counter = createCharCounter();
const AGENTS: AgentDescriptor[] = [
  { id: 'planner', scope: 'schedules and partitions', allowedActions: ['update_scoped_todo'] },
  { id: 'tester', scope: 'data tests', allowedActions: ['update_scoped_todo', 'request_clarification'] },
];

/** A process whose router model answers `route(prompt)` and whose agents answer `reply`. */
function setup(options: { route: (prompt: string) => unknown; window?: number }) {
  const blackboard = createCompressionBlackboard();
  const routerModel = textModel((prompt) => JSON.stringify(options.route(prompt)));
  const agentModel = textModel(() => 'done');
  const graph = createDynamicProcess({
    blackboard,
    counter,
    agents: AGENTS.map((agent) =>
      defineAgent({
        id: agent.id,
        systemPrompt: `You are ${agent.id}.`,
        model: agentModel,
        window: options.window ?? 20_000,
      }),
    ),
    router: createCommanderRouter({
      agents: AGENTS,
      router: createModelRouter({ model: routerModel }),
      config: DEFAULT_ROUTER_CONFIG,
      counter,
    }),
    agentNode: () => ({ sources: compressionSources, compact: createCompressionCompactStage({ counter }) }),
  }).compile({ checkpointer: new SqliteSaver({ path: ':memory:' }) });
  const send = async (userId: string, inputId: string, content: string) => {
    const threadId = formatThreadId({ app: 'etl', userId, sessionId: 's1' });
    const result = await submitInput({
      graph,
      config: { configurable: { thread_id: threadId } },
      input: { inputId, content },
      session: { namespace: `etl:user:${userId}`, sessionId: 's1' },
      blackboard,
    });
    const state = result.state as Record<string, unknown> & { messages: BaseMessage[] };
    const compression = new CompressionStateModule(new StateBuilder(state, { blackboard })).snapshot();
    return Object.assign(state, { requirements: compression?.requirements as RequirementTodoState });
  };
  return { graph, blackboard, agentModel, routerModel, send };
}

const addPartition = (quote: string) => ({
  targetAgent: 'planner',
  confidence: 0.9,
  actions: [
    {
      type: 'update_scoped_todo',
      ops: [{ op: 'add', type: 'constraint', priority: 'must', text: 'Partition by dt', quote }],
    },
  ],
});

describe('createCommanderRouter on the dynamic process', () => {
  it('routes by the semantic router and stores the scoped TODO delta with its evidence in the Blackboard', async () => {
    const { send, agentModel } = setup({ route: () => addPartition('必须按 dt 分区') });
    const state = await send('alice', 'i1', '输出表必须按 dt 分区。');
    const requirements = state.requirements;
    expect(requirements.scoped.planner?.items).toEqual([
      expect.objectContaining({
        id: 'planner#1',
        text: 'Partition by dt',
        evidence: [{ turnIndex: 0, messageId: 'human:s1:i1', quote: '必须按 dt 分区' }],
      }),
    ]);
    const [prompt] = prompts(agentModel);
    expect(prompt).toContain('planner#1');
    expect(prompt).toContain('You are planner.');
    expect(state.last_agent_status).toBe('completed');
  });

  it('turns a low-confidence decision into a clarification: no agent runs, no TODO changes', async () => {
    const { send, agentModel } = setup({ route: () => ({ ...addPartition('按 dt 分区'), confidence: 0.4 }) });
    const state = await send('alice', 'i1', '按 dt 分区吧');
    expect(agentModel.calls).toHaveLength(0);
    expect(state.requirements.scoped).toEqual({});
    const last = state.messages.at(-1);
    expect(AIMessage.isInstance(last) && last.name).toBe('commander');
    expect(last?.id).toBe('commander:human:s1:i1:clarification');
  });

  it('records a rolled-back decision as such, with the rejection that caused it', async () => {
    const valid = addPartition('必须按 dt 分区').actions[0];
    const invented = {
      type: 'update_scoped_todo',
      ops: [{ op: 'add', type: 'rule', priority: 'must', text: 'Drop nulls', quote: 'words nobody wrote' }],
    };
    const { send, agentModel } = setup({
      route: () => ({ targetAgent: 'planner', confidence: 0.9, actions: [valid, invented] }),
    });
    const state = await send('alice', 'i1', '输出表必须按 dt 分区。');
    expect(agentModel.calls).toHaveLength(0);
    expect(state.requirements.scoped).toEqual({});
    const coordination = state.compression_coordination as { lastTurn?: { commander?: unknown } };
    expect(coordination.lastTurn?.commander).toMatchObject({
      outcome: 'routed',
      target: null,
      reason: 'invalid-action',
      actions: ['update_scoped_todo:rolled-back', 'update_scoped_todo:rejected'],
      actionMessages: [
        expect.stringMatching(
          /rolled back: action 1 \(update_scoped_todo\) was rejected: quote is not in message human:s1:i1$/u,
        ),
        'quote is not in message human:s1:i1',
      ],
    });
  });

  it('turns on clipping with /compress without calling the router or an agent', async () => {
    const { send, agentModel, routerModel } = setup({ route: () => addPartition('x') });
    const state = await send('alice', 'i1', '/compress requirement');
    expect(routerModel.calls).toHaveLength(0);
    expect(agentModel.calls).toHaveLength(0);
    expect(state.compression_session).toMatchObject({
      forceContextClipping: true,
      clippingScope: 'requirement',
    });
  });

  it('keeps two users with the same session id apart', async () => {
    const { send, agentModel } = setup({
      route: (prompt) =>
        addPartition(prompt.includes('alice-only') ? 'alice-only 必须按 dt 分区' : '必须按小时分区'),
    });
    await send('alice', 'i1', 'alice-only 必须按 dt 分区');
    const bob = await send('bob', 'i1', '必须按小时分区');
    const bobItems = bob.requirements.scoped.planner?.items ?? [];
    expect(bobItems.map((item) => item.evidence[0]?.quote)).toEqual(['必须按小时分区']);
    expect(prompts(agentModel)[1]).not.toContain('alice-only');
    expect(bob.compression_session).toMatchObject({ threadId: 'etl:user:bob:session:s1' });
  });

  it('refuses a thread id that is not <app>:user:<userId>:session:<sessionId>', async () => {
    const { graph, blackboard } = setup({ route: () => addPartition('x') });
    await expect(
      submitInput({
        graph,
        config: { configurable: { thread_id: 'plain-thread' } },
        input: { inputId: 'i1', content: 'hello' },
        blackboard,
      }),
    ).rejects.toSatisfy((error) => CtxloomError.is(error, 'invalid-config'));
  });

  it('records an over-budget request as a budget failure and asks the user to narrow the scope', async () => {
    const { send, agentModel } = setup({ route: () => addPartition('dt'), window: 400 });
    const state = await send('alice', 'i1', `按 dt 分区。${'很长的表清单 '.repeat(80)}`);
    expect(agentModel.calls).toHaveLength(0);
    expect(state.last_agent_status).toBe('failed');
    expect(state.last_agent_failure_kind).toBe('budget');
    expect(state.messages.at(-1)?.text).toMatch(/narrow the scope/);
  });
});
