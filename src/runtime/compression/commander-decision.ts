import type { CallDecision } from '../../core/call-record.ts';
import type { CommanderNext, ProcessedUserMessage } from '../../routing/index.ts';
import type { RouteDecision } from '../processes/dynamic.ts';
import type { CommanderRecord } from './compression-blackboard.ts';

/** The Blackboard's record of one commander decision (a user message's, or a review's). */
export function commanderRecord(input: {
  messageId: string;
  turn: number;
  processed: ProcessedUserMessage;
  review: boolean;
}): CommanderRecord {
  const { outcome, patch } = input.processed;
  return {
    messageId: input.messageId,
    turn: input.turn,
    outcome: outcome.type,
    reason: reasonOf(input.processed),
    target: targetOf(patch.next, input.review),
    confidence: outcome.type === 'routed' ? outcome.decision.confidence : null,
    actions: patch.actions.map((action) => `${action.type}:${action.status}`),
    actionMessages: patch.actions.map((action) => action.message),
    resolvedRequestIds: patch.resolvedRequestIds ?? [],
    next: patch.next.type,
  };
}

/** The same decision as the router's call record carries it (the notebook's call report). */
export function callDecision(processed: ProcessedUserMessage, review: boolean): CallDecision {
  const { outcome, patch } = processed;
  const next = patch.next;
  return {
    outcome: outcome.type,
    review,
    next: next.type,
    target: targetOf(next, review),
    reason: reasonOf(processed),
    confidence: outcome.type === 'routed' ? outcome.decision.confidence : null,
    ...(next.type === 'rework'
      ? { rework: { agentId: next.agentId, artifactId: next.artifactId, reason: next.reason } }
      : {}),
    ...(next.type === 'gate'
      ? { gate: { verdict: next.verdict, requirementIds: next.requirementIds, reason: next.reason } }
      : {}),
    actions: patch.actions.map((action) => ({
      type: action.type,
      status: action.status,
      message: action.message,
      ...(action.error === undefined ? {} : { code: action.error.code, path: action.error.path }),
    })),
  };
}

/**
 * Where the dynamic process goes after a commander decision: the agent to run (with its task
 * for a rework or a failed gate), or `undefined` to end the turn. After an agent ran
 * (`review`), only a rework or a failed gate runs another agent.
 */
export function routeOf(next: CommanderNext, review: boolean): RouteDecision {
  switch (next.type) {
    case 'agent':
      return review ? undefined : { agentId: next.agentId };
    case 'rework':
      return { agentId: next.agentId, task: `Rework ${next.artifactId}: ${next.reason}` };
    case 'gate':
      return next.verdict === 'fail' && next.agentId !== null
        ? {
            agentId: next.agentId,
            task: `The gate failed on ${next.requirementIds.join(', ')}: ${next.reason}. Redo your work so it meets them.`,
          }
        : undefined;
    default:
      return undefined;
  }
}

function targetOf(next: CommanderNext, review: boolean): string | null {
  return routeOf(next, review)?.agentId ?? null;
}

function reasonOf({ outcome, patch }: ProcessedUserMessage): string | null {
  if (outcome.type === 'clarification') return outcome.reason;
  return patch.next.type === 'clarify' ? patch.next.reason : null;
}
