import { describe, expect, it } from 'vitest';
import { countCallTokens } from '../ai-sdk/index.ts';
import { mockJsonModel } from '../compression/mock-json-model.test-support.ts';
import type { CompiledContext } from '../core/index.ts';
import { createO200kCounter } from '../tokenizers/index.ts';
import { ETL_AGENTS } from './fixtures.test-support.ts';
import { createLexicalRouter } from './lexical-router.ts';
import { routeUserMessage } from './route-user-message.ts';
import { DEFAULT_ROUTER_CONFIG, resolveRouterConfig } from './router-config.ts';
import type { RouterInput } from './router-input.ts';
import { createModelRouter } from './semantic-router.ts';

const input = (text: string, overrides: Partial<RouterInput> = {}): RouterInput => ({
  agents: ETL_AGENTS,
  stateSummary: 'phase: analysis',
  coordination: { pendingRequests: [], requestResults: [] },
  globalTodoView: '',
  scopedTodoViews: {},
  artifactIndexView: '',
  userMessage: { id: 'm1', turnIndex: 0, text },
  ...overrides,
});
const route = (raw: unknown, text = 'SQL 里把 amount 改成 paid_amount') =>
  routeUserMessage({
    input: input(text),
    router: createModelRouter({ model: mockJsonModel(raw) }),
    config: DEFAULT_ROUTER_CONFIG,
  });

describe('routeUserMessage', () => {
  it('refuses a router request that does not fit the model’s window, before anything is sent', async () => {
    const model = mockJsonModel({ targetAgent: 'tester', confidence: 0.9, actions: [] });
    const huge = input('加一个空值校验', { globalTodoView: '- G1 '.repeat(20_000) });
    await expect(
      routeUserMessage({
        input: huge,
        router: createModelRouter({ model, counter: createO200kCounter(), window: 4000 }),
        config: DEFAULT_ROUTER_CONFIG,
      }),
    ).rejects.toMatchObject({ code: 'over-budget' });
    expect(model.doGenerateCalls).toHaveLength(0);
  });

  it('compiles the router’s call through core and hands it to onCall before it is sent: the report is what the provider received', async () => {
    const model = mockJsonModel({ targetAgent: 'tester', confidence: 0.9, actions: [] });
    const counter = createO200kCounter();
    const compiled: CompiledContext[] = [];
    await routeUserMessage({
      input: input('加一个空值校验'),
      router: createModelRouter({ model, counter }),
      config: DEFAULT_ROUTER_CONFIG,
      onCall: (call) => {
        expect(model.doGenerateCalls).toHaveLength(0);
        compiled.push(call);
      },
    });
    expect(compiled).toHaveLength(1);
    expect(model.doGenerateCalls).toHaveLength(1);
    expect(countCallTokens(model.doGenerateCalls[0]!, counter)).toBe(compiled[0]?.report.totalTokens);
    expect(compiled[0]?.report.fits).toBe(true);
  });

  it('accepts a whitelisted decision above the threshold', async () => {
    const outcome = await route({
      targetAgent: 'sql_developer',
      confidence: 0.9,
      actions: [
        {
          type: 'update_scoped_todo',
          ops: [
            {
              op: 'add',
              type: 'rule',
              priority: 'must',
              text: 'use paid_amount',
              quote: '把 amount 改成 paid_amount',
            },
          ],
        },
      ],
    });
    expect(outcome).toMatchObject({
      type: 'routed',
      decision: { targetAgent: 'sql_developer' },
      source: 'model:mock-provider/mock-model-id',
    });
  });

  it('asks for clarification on an unknown agent, a forbidden action, malformed output or low confidence', async () => {
    const cases: [unknown, string][] = [
      [{ targetAgent: 'dba', confidence: 0.95, actions: [] }, 'unknown-agent'],
      [
        {
          targetAgent: 'tester',
          confidence: 0.95,
          actions: [{ type: 'invalidate_artifact', artifactId: 'x', reason: 'y' }],
        },
        'action-not-allowed',
      ],
      [
        { targetAgent: 'tester', confidence: 0.95, actions: [{ type: 'drop_table', table: 'dw.x' }] },
        'action-not-allowed',
      ],
      ['the tester, I think', 'malformed-output'],
      [{ targetAgent: 'tester', confidence: '0.9', actions: [] }, 'malformed-output'],
      [
        { targetAgent: 'tester', confidence: 0.95, actions: [{ type: 'update_scoped_todo', ops: 'all' }] },
        'malformed-output',
      ],
      [{ targetAgent: 'tester', confidence: 0.69, actions: [] }, 'low-confidence'],
    ];
    for (const [raw, reason] of cases) {
      const outcome = await route(raw);
      expect(outcome.type).toBe('clarification');
      expect(outcome.type === 'clarification' && outcome.reason).toBe(reason);
    }
  });

  it('rejects fields the strict schema does not have, at every level, instead of stripping them', async () => {
    const add = { op: 'add', type: 'rule', priority: 'must', text: 'use paid_amount', quote: 'paid_amount' };
    const cases: [unknown, RegExp][] = [
      [
        {
          targetAgent: 'analyst',
          confidence: 0.95,
          actions: [{ type: 'update_scoped_todo', target: 'planner', ops: [add] }],
        },
        /actions\.0.*"target"/u,
      ],
      [{ targetAgent: 'analyst', confidence: 0.95, actions: [], scope: 'global' }, /"scope"/u],
      [
        {
          targetAgent: 'analyst',
          confidence: 0.95,
          actions: [{ type: 'update_scoped_todo', ops: [{ ...add, agentId: 'planner' }] }],
        },
        /actions\.0\.ops\.0.*"agentId"/u,
      ],
    ];
    for (const [raw, field] of cases) {
      const outcome = await route(raw);
      expect(outcome).toMatchObject({ type: 'clarification', reason: 'malformed-output' });
      expect(outcome.type === 'clarification' && outcome.message).toMatch(field);
    }
  });

  it('routes the answer to a pending human request to its resume agent without calling the router', async () => {
    const model = mockJsonModel({ targetAgent: 'tester', confidence: 1, actions: [] });
    const outcome = await routeUserMessage({
      input: input('按 dt 分区', {
        coordination: {
          pendingRequests: [
            { id: 'r0', kind: 'agent', status: 'pending', createdBy: 'tester', question: '?' },
            {
              id: 'r1',
              kind: 'human',
              status: 'pending',
              createdBy: 'planner',
              resumeTo: 'sql_developer',
              question: '按什么分区？',
            },
          ],
          requestResults: [],
        },
      }),
      router: createModelRouter({ model }),
      config: DEFAULT_ROUTER_CONFIG,
    });
    expect(outcome).toMatchObject({
      type: 'resume',
      targetAgent: 'sql_developer',
      attributedTo: 'planner',
      request: { id: 'r1' },
    });
    expect(model.doGenerateCalls).toHaveLength(0);
  });

  it('sends the agents, their allowed actions and the views to the model', async () => {
    const model = mockJsonModel({ targetAgent: 'tester', confidence: 0.9, actions: [] });
    await routeUserMessage({
      input: input('加一个空值校验', {
        globalTodoView: '## Requirements (global)\n- G1 [must · output] dw.x',
      }),
      router: createModelRouter({ model }),
      config: DEFAULT_ROUTER_CONFIG,
    });
    const prompt = JSON.stringify(model.doGenerateCalls[0]?.prompt);
    expect(prompt).toContain('tester: Data tests');
    expect(prompt).toContain('allowed actions: update_scoped_todo, request_clarification');
    expect(prompt).toContain('G1 [must · output] dw.x');
    expect(model.doGenerateCalls[0]?.responseFormat).toMatchObject({ type: 'json' });
  });
});

describe('createLexicalRouter (offline heuristic)', () => {
  const lexical = (text: string) =>
    routeUserMessage({ input: input(text), router: createLexicalRouter(), config: DEFAULT_ROUTER_CONFIG });

  it('routes Chinese and English messages by agent scope terms', async () => {
    expect(await lexical('请加一个验收测试：校验行数和空值')).toMatchObject({
      type: 'routed',
      decision: { targetAgent: 'tester' },
    });
    expect(await lexical('The SQL join should select only paid orders')).toMatchObject({
      type: 'routed',
      decision: { targetAgent: 'sql_developer' },
    });
    expect(await lexical('调度改成每天凌晨两点，依赖上游的 ods 任务')).toMatchObject({
      type: 'routed',
      decision: { targetAgent: 'planner' },
    });
  });

  it('extracts requirement ops with the offline heuristic as a scoped update', async () => {
    const outcome = await lexical('必须增加空值校验测试');
    expect(outcome.type === 'routed' && outcome.decision.actions).toEqual([
      {
        type: 'update_scoped_todo',
        ops: [
          {
            op: 'add',
            type: 'acceptance',
            priority: 'must',
            text: '必须增加空值校验测试',
            quote: '必须增加空值校验测试',
          },
        ],
      },
    ]);
  });

  it('asks for clarification when nothing in the message matches a scope', async () => {
    expect(await lexical('好的，谢谢')).toMatchObject({ type: 'clarification', reason: 'low-confidence' });
  });
});

describe('resolveRouterConfig', () => {
  it('reads thresholds from keys carrying the app prefix', () => {
    expect(resolveRouterConfig({ app: 'etl' })).toEqual({
      confidenceThreshold: 0.7,
      globalDeltaThreshold: 0.7,
    });
    expect(resolveRouterConfig({ app: 'etl', values: { etl_router_confidence_threshold: '0.8' } })).toEqual({
      confidenceThreshold: 0.8,
      globalDeltaThreshold: 0.8,
    });
    expect(
      resolveRouterConfig({
        app: 'etl',
        values: {
          etl_router_confidence_threshold: 0.6,
          etl_global_delta_confidence_threshold: 0.9,
          router_confidence_threshold: 0.1,
        },
      }),
    ).toEqual({ confidenceThreshold: 0.6, globalDeltaThreshold: 0.9 });
    expect(() =>
      resolveRouterConfig({ app: 'etl', values: { etl_router_confidence_threshold: '1.5' } }),
    ).toThrow(/etl_router_confidence_threshold/);
  });
});
