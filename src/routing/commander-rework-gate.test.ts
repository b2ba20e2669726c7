import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type CompressionState,
  createCompressionState,
  formatThreadId,
  registerArtifact,
} from '../compression/index.ts';
import { CtxloomError } from '../core/index.ts';
import { applyRouterDecision } from './apply-router-decision.ts';
import { applyCommanderPatch, patchChangesState } from './commander-patch.ts';
import { ETL_AGENTS } from './fixtures.test-support.ts';
import type { RouteOutcome } from './route-user-message.ts';
import type { RouterAction, RouterDecision } from './router-schema.ts';
import { validateDecisionReferences } from './validate-decision-references.ts';

const threadId = formatThreadId({ app: 'etl', userId: 'u1', sessionId: 's1' });
const config = { confidenceThreshold: 0.7, globalDeltaThreshold: 0.8 };
const first = { id: 'm1', turnIndex: 1, text: '输出表必须是 dw.sales，金额不含退款。' };
const cancel = { id: 'm1b', turnIndex: 1, text: '不含退款这条取消。' };
const userMessage = { id: 'm2', turnIndex: 2, text: 'SQL 要用 left join。' };
const routed = (decision: RouterDecision): RouteOutcome => ({ type: 'routed', decision, source: 'test' });
const add = (text: string, quote: string) => ({
  op: 'add' as const,
  type: 'rule' as const,
  priority: 'must' as const,
  text,
  quote,
});

/** G1 open, G2 cancelled, and one active SQL artifact `sql_job:sales@v1`. */
function state(): CompressionState {
  let current = createCompressionState({ threadId });
  const artifacts = registerArtifact(
    current.artifacts,
    {
      kind: 'sql_job',
      name: 'sales',
      agentId: 'sql_developer',
      content: 'INSERT INTO dw.sales SELECT 1',
      turnIndex: 1,
    },
    { clock: () => 0 },
  ).state;
  current = { ...current, artifacts };
  const apply = (actions: RouterAction[], message = first) => {
    const patch = applyRouterDecision({
      state: current,
      userMessage: message,
      config,
      outcome: routed({ targetAgent: 'analyst', confidence: 0.9, actions }),
    });
    current = applyCommanderPatch(current, patch);
  };
  apply([
    {
      type: 'propose_global_delta',
      confidence: 0.9,
      ops: [add('output dw.sales', '输出表必须是 dw.sales'), add('no refunds', '金额不含退款')],
    },
  ]);
  apply(
    [
      {
        type: 'propose_global_delta',
        confidence: 0.9,
        ops: [{ op: 'cancel', id: 'G2', quote: '不含退款这条取消' }],
      },
    ],
    cancel,
  );
  expect(current.requirements.global.items.map((item) => `${item.id}:${item.status}`)).toEqual([
    'G1:open',
    'G2:cancelled',
  ]);
  return current;
}

/** Valid actions that each change state, so "nothing applied" is visible. */
const WRITES: RouterAction[] = [
  { type: 'update_scoped_todo', ops: [add('left join', 'SQL 要用 left join')] },
  { type: 'invalidate_artifact', artifactId: 'sql_job:sales', reason: 'join changed' },
];
const decide = (actions: RouterAction[], targetAgent = 'sql_developer') =>
  applyRouterDecision({
    state: state(),
    userMessage,
    config,
    agents: ETL_AGENTS,
    outcome: routed({ targetAgent, confidence: 0.9, actions }),
  });

describe('rework and gate decisions (commander)', () => {
  it('turns a rework into "the named agent redoes the artifact", its version invalidated', () => {
    const before = state();
    const patch = decide([
      { type: 'rework', agentId: 'sql_developer', artifactId: 'sql_job:sales', reason: 'use LEFT JOIN' },
    ]);
    expect(patch.next).toEqual({
      type: 'rework',
      agentId: 'sql_developer',
      artifactId: 'sql_job:sales',
      reason: 'use LEFT JOIN',
    });
    expect(patch.actions).toEqual([
      {
        actionIndex: 0,
        type: 'rework',
        status: 'applied',
        message: 'sql_developer redoes sql_job:sales: use LEFT JOIN',
      },
    ]);
    const after = applyCommanderPatch(before, patch);
    expect(after.artifacts.index.artifacts[0]).toMatchObject({
      id: 'sql_job:sales@v1',
      status: 'invalidated',
      invalidation: { reason: 'rework by sql_developer: use LEFT JOIN', turnIndex: 2 },
    });
  });

  it('ends the turn on a passing gate and sends a failing one back to the target agent', () => {
    const pass = decide([
      { type: 'gate', verdict: 'pass', requirementIds: ['G1'], reason: 'output matches' },
    ]);
    expect(pass.next).toEqual({
      type: 'gate',
      verdict: 'pass',
      requirementIds: ['G1'],
      reason: 'output matches',
      agentId: null,
    });
    expect(patchChangesState(pass)).toBe(false);
    const fail = decide(
      [{ type: 'gate', verdict: 'fail', requirementIds: ['G1'], reason: 'writes dw.sale' }],
      'sql_developer',
    );
    expect(fail.next).toMatchObject({ type: 'gate', verdict: 'fail', agentId: 'sql_developer' });
    expect(fail.actions[0]).toMatchObject({ status: 'applied', message: 'fail G1: writes dw.sale' });
  });

  const UNKNOWN: [string, RouterAction, string, string][] = [
    [
      'agent',
      { type: 'rework', agentId: 'dba', artifactId: 'sql_job:sales', reason: 'x' },
      'actions.2.agentId',
      'not-found',
    ],
    [
      'artifact',
      { type: 'rework', agentId: 'sql_developer', artifactId: 'sql_job:orders', reason: 'x' },
      'actions.2.artifactId',
      'not-found',
    ],
    [
      'requirement',
      { type: 'gate', verdict: 'fail', requirementIds: ['G1', 'G9'], reason: 'x' },
      'actions.2.requirementIds.1',
      'not-found',
    ],
    [
      'cancelled requirement',
      { type: 'gate', verdict: 'pass', requirementIds: ['G2'], reason: 'x' },
      'actions.2.requirementIds.0',
      'invalid-argument',
    ],
  ];
  for (const [what, bad, path, code] of UNKNOWN) {
    it(`refuses the whole decision for an unknown ${what}: a typed error, nothing applied`, () => {
      const decision = { targetAgent: 'sql_developer', confidence: 0.9, actions: [...WRITES, bad] };
      let thrown: unknown;
      try {
        validateDecisionReferences(decision, { agents: ETL_AGENTS, state: state() });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(CtxloomError);
      expect(thrown).toMatchObject({ code, path, details: expect.objectContaining({ actionIndex: 2 }) });

      const before = state();
      const patch = decide(decision.actions);
      expect(patch.next).toMatchObject({ type: 'clarify', reason: 'invalid-action' });
      expect(patchChangesState(patch)).toBe(false);
      expect(applyCommanderPatch(before, patch)).toEqual(before);
      expect(patch.actions.map((action) => action.status)).toEqual([
        'rolled-back',
        'rolled-back',
        'rejected',
      ]);
      expect(patch.actions[2]).toMatchObject({ error: { code, path }, message: (thrown as Error).message });
      expect(patch.actions[0]?.message).toContain('action 2 was rejected');
    });
  }

  it('refuses contradictory decisions: a rework with a passing gate, two reworks', () => {
    const rework = {
      type: 'rework' as const,
      agentId: 'sql_developer',
      artifactId: 'sql_job:sales',
      reason: 'x',
    };
    const pass = { type: 'gate' as const, verdict: 'pass' as const, requirementIds: ['G1'], reason: 'ok' };
    expect(() =>
      validateDecisionReferences(
        { targetAgent: 'sql_developer', confidence: 0.9, actions: [rework, pass] },
        { agents: ETL_AGENTS, state: state() },
      ),
    ).toThrow(expect.objectContaining({ code: 'invalid-argument', path: 'actions.1.verdict' }));
    expect(decide([rework, rework]).actions.map((action) => action.status)).toEqual([
      'rolled-back',
      'rejected',
    ]);
    // A rework with a failing gate is coherent: the rework decides who runs next.
    expect(decide([{ ...pass, verdict: 'fail' }, rework]).next).toMatchObject({ type: 'rework' });
  });

  it('changes state only when every id of a random decision is known (property)', () => {
    const agentId = fc.constantFrom('sql_developer', 'tester', 'dba');
    const artifactId = fc.constantFrom('sql_job:sales', 'sql_job:sales@v1', 'plan:x');
    const requirementId = fc.constantFrom('G1', 'G7', 'sql_developer#9');
    const action = fc.oneof(
      fc.record({ type: fc.constant('rework' as const), agentId, artifactId, reason: fc.constant('r') }),
      fc.record({
        type: fc.constant('gate' as const),
        verdict: fc.constantFrom('pass' as const, 'fail' as const),
        requirementIds: fc.array(requirementId, { minLength: 1, maxLength: 3 }),
        reason: fc.constant('r'),
      }),
    );
    fc.assert(
      fc.property(fc.array(action, { maxLength: 3 }), (extra) => {
        const patch = decide([...WRITES, ...extra]);
        const unknown = extra.some((candidate) =>
          candidate.type === 'rework'
            ? candidate.agentId === 'dba' || candidate.artifactId === 'plan:x'
            : candidate.requirementIds.some((id) => id !== 'G1'),
        );
        if (unknown) {
          expect(patchChangesState(patch)).toBe(false);
          expect(patch.next.type).toBe('clarify');
          expect(patch.actions.filter((report) => report.status === 'rejected')).toHaveLength(1);
          expect(patch.actions.every((report) => report.status !== 'applied')).toBe(true);
        } else if (patch.next.type !== 'clarify') {
          expect(patch.actions.every((report) => report.status === 'applied')).toBe(true);
        }
      }),
      { numRuns: 200 },
    );
  });
});
