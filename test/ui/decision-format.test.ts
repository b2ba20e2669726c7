import { describe, expect, it } from 'vitest';
import type { CallDecision } from '../../src/core/index.ts';
import { describeDecision } from '../../web/src/decision-format.ts';
import { translator } from '../../web/src/i18n.ts';

const base = { outcome: 'routed', review: true, reason: null, confidence: 0.9 } as const;
const REWORK: CallDecision = {
  ...base,
  next: 'rework',
  target: 'sql_developer',
  rework: { agentId: 'sql_developer', artifactId: 'sql_job:orders_daily', reason: 'refunds dropped' },
  actions: [
    {
      type: 'rework',
      status: 'applied',
      message: 'sql_developer redoes sql_job:orders_daily: refunds dropped',
    },
  ],
};
const GATE_PASS: CallDecision = {
  ...base,
  next: 'gate',
  target: null,
  gate: { verdict: 'pass', requirementIds: ['G1', 'G3'], reason: 'all met' },
  actions: [{ type: 'gate', status: 'applied', message: 'pass G1, G3: all met' }],
};
const GATE_FAIL: CallDecision = {
  ...GATE_PASS,
  review: false,
  target: 'tester',
  gate: { verdict: 'fail', requirementIds: ['G3'], reason: 'nulls unchecked' },
};
const REFUSED: CallDecision = {
  ...base,
  review: false,
  next: 'clarify',
  target: null,
  reason: 'invalid-action',
  actions: [
    { type: 'update_scoped_todo', status: 'rolled-back', message: 'not applied: action 1 was rejected' },
    {
      type: 'rework',
      status: 'rejected',
      message: 'action 1 (rework): agent "dba" is not one of the listed agents (at actions.1.agentId)',
      code: 'not-found',
      path: 'actions.1.agentId',
    },
  ],
};

describe('describeDecision (notebook call report)', () => {
  it('says who redoes which artifact and why, marked as a review', () => {
    expect(describeDecision(REWORK, translator('en'))).toEqual({
      summary:
        'review of the agent’s work · rework: sql_developer redoes sql_job:orders_daily — refunds dropped',
      actions: ['rework: applied — sql_developer redoes sql_job:orders_daily: refunds dropped'],
    });
    expect(describeDecision(REWORK, translator('zh')).summary).toBe(
      '复核智能体产出 · 返工：sql_developer 重做 sql_job:orders_daily —— refunds dropped',
    );
  });

  it('gives a gate’s verdict with its requirement ids, and where a failure goes back to', () => {
    expect(describeDecision(GATE_PASS, translator('en')).summary).toBe(
      'review of the agent’s work · gate passed: G1, G3 — all met',
    );
    expect(describeDecision(GATE_FAIL, translator('en')).summary).toBe(
      'gate failed: G3 — nulls unchecked; back to tester',
    );
    expect(describeDecision(GATE_FAIL, translator('zh')).summary).toBe(
      '未通过门禁：G3 —— nulls unchecked；退回 tester',
    );
  });

  it('shows a refused decision: every action rolled back, the rejected one with its error code and path', () => {
    const en = describeDecision(REFUSED, translator('en'));
    expect(en.summary).toBe('asks the user (invalid-action)');
    expect(en.actions).toEqual([
      'update_scoped_todo: rolled back — not applied: action 1 was rejected',
      'rework: rejected — action 1 (rework): agent "dba" is not one of the listed agents (at actions.1.agentId) (not-found at actions.1.agentId)',
    ]);
    const zh = describeDecision(REFUSED, translator('zh'));
    expect(zh.actions[1]).toMatch(/^rework：已拒绝 —— .+ \(not-found，位置 actions\.1\.agentId\)$/u);
  });

  it('fills every placeholder in both languages', () => {
    for (const locale of ['en', 'zh'] as const) {
      for (const decision of [REWORK, GATE_PASS, GATE_FAIL, REFUSED]) {
        const { summary, actions } = describeDecision(decision, translator(locale));
        for (const line of [summary, ...actions]) expect(line).not.toMatch(/\{\w+\}/u);
      }
    }
  });
});
