import type { CallDecision } from '../../src/core/index.ts';
import type { MessageKey, Translate } from './i18n.ts';

const STATUS: Record<string, MessageKey> = {
  applied: 'decisionApplied',
  queued: 'decisionQueued',
  'no-op': 'decisionNoOp',
  rejected: 'decisionRejected',
  'rolled-back': 'decisionRolledBack',
};

/**
 * A commander decision as the call report shows it, in the UI language: one line for where
 * control went (next agent, rework, gate verdict, clarification, `/compress`; a review says
 * so first) and one line per proposed action with its status, message and — for a refused
 * reference — the typed error's code and path.
 */
export function describeDecision(
  decision: CallDecision,
  t: Translate,
): { summary: string; actions: string[] } {
  const next = describeNext(decision, t);
  return {
    summary: decision.review ? `${t('decisionReview')} · ${next}` : next,
    actions: decision.actions.map((action) => {
      const status = STATUS[action.status];
      const line = t('decisionAction', {
        type: action.type,
        status: status === undefined ? action.status : t(status),
        message: action.message,
      });
      return action.code === undefined
        ? line
        : `${line} (${t('decisionError', { code: action.code, path: action.path ?? '' })})`;
    }),
  };
}

function describeNext(decision: CallDecision, t: Translate): string {
  if (decision.rework !== undefined) {
    return t('decisionRework', {
      agent: decision.rework.agentId,
      artifact: decision.rework.artifactId,
      reason: decision.rework.reason,
    });
  }
  if (decision.gate !== undefined) {
    const values = { ids: decision.gate.requirementIds.join(', '), reason: decision.gate.reason };
    return decision.gate.verdict === 'pass'
      ? t('decisionGatePass', values)
      : t('decisionGateFail', { ...values, agent: decision.target ?? '' });
  }
  if (decision.next === 'compress') return t('decisionCompress');
  if (decision.next === 'clarify' || decision.target === null) {
    // After an agent ran, only the router's own question reaches the user.
    if (decision.review && decision.next === 'agent') return t('decisionReviewEnds');
    if (decision.review && decision.reason !== 'router-asked') {
      return t('decisionReviewRefused', { reason: decision.reason ?? decision.outcome });
    }
    return t('decisionClarify', { reason: decision.reason ?? decision.outcome });
  }
  return decision.outcome === 'resume'
    ? t('decisionResume', { agent: decision.target })
    : t('decisionAgent', { agent: decision.target, confidence: decision.confidence ?? '—' });
}
