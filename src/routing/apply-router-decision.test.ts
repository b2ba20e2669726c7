import { describe, expect, it } from 'vitest';
import {
  type CompressionState,
  createCompressionState,
  formatThreadId,
  registerArtifact,
} from '../compression/index.ts';
import { applyRouterDecision } from './apply-router-decision.ts';
import { applyCommanderPatch, patchChangesState } from './commander-patch.ts';
import type { RouteOutcome } from './route-user-message.ts';
import { DEFAULT_ROUTER_CONFIG } from './router-config.ts';
import type { RouterDecision } from './router-schema.ts';

const threadId = formatThreadId({ app: 'etl', userId: 'u1', sessionId: 's1' });
const text = '输出表改成 dw.sales_daily，SQL 里金额用 paid_amount。';
const userMessage = { id: 'm5', turnIndex: 5, text };
const routed = (decision: RouterDecision): RouteOutcome => ({ type: 'routed', decision, source: 'test' });
const config = { confidenceThreshold: 0.7, globalDeltaThreshold: 0.8 };

function stateWithArtifact(): CompressionState {
  const state = createCompressionState({ threadId });
  const registered = registerArtifact(
    state.artifacts,
    {
      kind: 'sql_job',
      name: 'sales',
      agentId: 'sql_developer',
      content: 'INSERT INTO dw.sales SELECT * FROM ods.o',
      turnIndex: 2,
    },
    { clock: () => 0 },
  );
  return { ...state, artifacts: registered.state };
}
const addOutput = {
  op: 'add' as const,
  type: 'output' as const,
  priority: 'must' as const,
  text: 'target dw.sales_daily',
  quote: '输出表改成 dw.sales_daily',
};

describe('applyRouterDecision (commander)', () => {
  it('writes scoped ops to the target agent, a confident global delta to the global TODO and invalidates artifacts', () => {
    const state = stateWithArtifact();
    const patch = applyRouterDecision({
      state,
      userMessage,
      config,
      outcome: routed({
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
                text: 'amount = paid_amount',
                quote: 'SQL 里金额用 paid_amount',
              },
            ],
          },
          { type: 'propose_global_delta', ops: [addOutput], confidence: 0.85 },
          { type: 'invalidate_artifact', artifactId: 'sql_job:sales', reason: 'target table changed' },
        ],
      }),
    });
    expect(patch.next).toEqual({ type: 'agent', agentId: 'sql_developer' });
    expect(patch.actions.map((action) => action.status)).toEqual(['applied', 'applied', 'applied']);
    const next = applyCommanderPatch(state, patch);
    expect(next.requirements.scoped.sql_developer?.items.map((item) => item.id)).toEqual(['sql_developer#1']);
    expect(next.requirements.global.items[0]?.evidence[0]).toEqual({
      turnIndex: 5,
      messageId: 'm5',
      quote: '输出表改成 dw.sales_daily',
    });
    expect(next.artifacts.index.artifacts[0]?.status).toBe('invalidated');
  });

  it('turns a global delta below its threshold into an open question and leaves the global TODO alone', () => {
    const state = createCompressionState({ threadId });
    const patch = applyRouterDecision({
      state,
      userMessage,
      config,
      outcome: routed({
        targetAgent: 'planner',
        confidence: 0.9,
        actions: [{ type: 'propose_global_delta', ops: [addOutput], confidence: 0.79 }],
      }),
    });
    expect(patch.globalTodo).toBeUndefined();
    expect(patch.openQuestions).toEqual([
      expect.objectContaining({
        id: 'Q1',
        source: 'low-confidence-global-delta',
        confidence: 0.79,
        proposedOps: [addOutput],
      }),
    ]);
    expect(applyCommanderPatch(state, patch).requirements.global).toBe(state.requirements.global);
  });

  it('changes nothing and asks for clarification when one action is invalid', () => {
    const state = stateWithArtifact();
    const patch = applyRouterDecision({
      state,
      userMessage,
      config,
      outcome: routed({
        targetAgent: 'sql_developer',
        confidence: 0.95,
        actions: [
          { type: 'update_scoped_todo', ops: [addOutput] },
          { type: 'invalidate_artifact', artifactId: 'sql_job:missing', reason: 'x' },
        ],
      }),
    });
    expect(patch.next.type).toBe('clarify');
    expect(patchChangesState(patch)).toBe(false);
    expect(patch.actions.map((action) => action.status)).toEqual(['rolled-back', 'rejected']);
    expect(patch.actions[0]?.message).toMatch(
      /rolled back: action 1 \(invalidate_artifact\) was rejected: no artifact sql_job:missing/u,
    );
    expect(patch.next).toMatchObject({ type: 'clarify', reason: 'invalid-action' });
  });

  it('rejects a scoped op whose quote is not in the message', () => {
    const patch = applyRouterDecision({
      state: createCompressionState({ threadId }),
      userMessage,
      config,
      outcome: routed({
        targetAgent: 'tester',
        confidence: 0.95,
        actions: [{ type: 'update_scoped_todo', ops: [{ ...addOutput, quote: 'invented words' }] }],
      }),
    });
    expect(patch.next.type).toBe('clarify');
    expect(patchChangesState(patch)).toBe(false);
  });

  it('only asks when the outcome is a clarification', () => {
    const patch = applyRouterDecision({
      state: createCompressionState({ threadId }),
      userMessage,
      config: DEFAULT_ROUTER_CONFIG,
      outcome: {
        type: 'clarification',
        reason: 'low-confidence',
        message: 'x',
        question: 'Which agent?',
        source: 'test',
      },
    });
    expect(patch).toMatchObject({ next: { type: 'clarify', question: 'Which agent?' }, actions: [] });
    expect(patchChangesState(patch)).toBe(false);
  });

  it('resumes the asking agent and attributes the answer to its scoped TODO', () => {
    const patch = applyRouterDecision({
      state: createCompressionState({ threadId }),
      userMessage,
      config,
      outcome: {
        type: 'resume',
        request: {
          id: 'r1',
          kind: 'human',
          status: 'pending',
          createdBy: 'planner',
          resumeTo: 'sql_developer',
          question: '?',
        },
        targetAgent: 'sql_developer',
        attributedTo: 'planner',
      },
      attributedProposal: { ops: [addOutput] },
    });
    expect(patch.next).toEqual({ type: 'agent', agentId: 'sql_developer' });
    expect(patch.resolvedRequestIds).toEqual(['r1']);
    expect(Object.keys(patch.scopedTodos ?? {})).toEqual(['planner']);
  });

  it('refuses a patch computed for another session or an older revision', () => {
    const state = createCompressionState({ threadId });
    const other = createCompressionState({
      threadId: formatThreadId({ app: 'etl', userId: 'u2', sessionId: 's1' }),
    });
    const patch = applyRouterDecision({
      state,
      userMessage,
      config,
      outcome: routed({
        targetAgent: 'tester',
        confidence: 0.9,
        actions: [{ type: 'update_scoped_todo', ops: [addOutput] }],
      }),
    });
    expect(() => applyCommanderPatch(other, patch)).toThrow(/patch for etl:user:u1/);
    expect(() => applyCommanderPatch({ ...state, revision: 3 }, patch)).toThrow(/revision/);
  });
});

describe('applyRouterDecision replayed', () => {
  it('changes nothing when the same message is applied again to the resulting state', () => {
    const state = stateWithArtifact();
    const outcome = routed({
      targetAgent: 'planner',
      confidence: 0.9,
      actions: [
        { type: 'update_scoped_todo', ops: [addOutput] },
        { type: 'propose_global_delta', ops: [addOutput], confidence: 0.5 },
        { type: 'propose_global_delta', ops: [{ ...addOutput, text: 'other' }], confidence: 0.95 },
        { type: 'request_clarification', question: 'Daily or hourly?' },
        { type: 'invalidate_artifact', artifactId: 'sql_job:sales@v1', reason: 'target changed' },
      ],
    });
    const once = applyCommanderPatch(state, applyRouterDecision({ state, userMessage, config, outcome }));
    const replay = applyRouterDecision({ state: once, userMessage, config, outcome });
    expect(replay.actions.map((action) => action.status)).toEqual([
      'no-op',
      'no-op',
      'no-op',
      'applied',
      'no-op',
    ]);
    expect(applyCommanderPatch(once, replay)).toEqual(once);
  });
});
