import type { CompressionState, RequirementItem } from '../compression/index.ts';
import { CtxloomError } from '../core/index.ts';
import type { AgentDescriptor } from './router-input.ts';
import type { RouterDecision } from './router-schema.ts';

/** Options of {@link validateDecisionReferences}. */
export interface ValidateDecisionReferencesOptions {
  /** The agents a `rework` may name. */
  agents: readonly AgentDescriptor[];
  /** The session's state: its artifact index and requirement TODOs are what ids must name. */
  state: CompressionState;
}

/**
 * Checks that a routed decision's `rework` and `gate` actions name things that exist, before
 * the commander applies anything (seed 004: the commander decides 是否返工 / 是否通过门禁, and
 * only on ids it can see). Throws a {@link CtxloomError} for the first problem, in action order:
 * - `not-found`: a `rework` names an agent that is not listed or an artifact (id or key) that
 *   is not in the index; a `gate` names a requirement id in no TODO (global or scoped).
 * - `invalid-argument`: a `gate` names a cancelled requirement; a decision carries more than
 *   one `rework` or more than one `gate`, or a `rework` together with a passing `gate`.
 *
 * The error's `path` is the offending field (`actions.2.artifactId`) and `details` hold
 * `actionIndex`, `type` and the `known` ids, so the refusal can be reported per action. Pure.
 */
export function validateDecisionReferences(
  decision: RouterDecision,
  options: ValidateDecisionReferencesOptions,
): void {
  const { agents, state } = options;
  const requirements = new Map<string, RequirementItem>();
  for (const snapshot of [state.requirements.global, ...Object.values(state.requirements.scoped)]) {
    for (const item of snapshot.items) requirements.set(item.id, item);
  }
  const artifacts = state.artifacts.index.artifacts;
  let reworkAt: number | undefined;
  let gateAt: number | undefined;
  for (const [actionIndex, action] of decision.actions.entries()) {
    const fail = (code: 'not-found' | 'invalid-argument', field: string, message: string, known?: string[]) =>
      new CtxloomError({
        code,
        message: `action ${actionIndex} (${action.type}): ${message}`,
        path: `actions.${actionIndex}${field === '' ? '' : `.${field}`}`,
        details: { actionIndex, type: action.type, ...(known === undefined ? {} : { known }) },
      });
    if (action.type === 'rework') {
      if (reworkAt !== undefined)
        throw fail('invalid-argument', '', `a second rework (the first is action ${reworkAt})`);
      reworkAt = actionIndex;
      if (!agents.some((agent) => agent.id === action.agentId)) {
        throw fail(
          'not-found',
          'agentId',
          `agent "${action.agentId}" is not one of the listed agents`,
          agents.map((agent) => agent.id),
        );
      }
      if (!artifacts.some((entry) => entry.id === action.artifactId || entry.key === action.artifactId)) {
        throw fail(
          'not-found',
          'artifactId',
          `artifact "${action.artifactId}" is not in the artifact index`,
          artifacts.map((entry) => entry.id),
        );
      }
    } else if (action.type === 'gate') {
      if (gateAt !== undefined)
        throw fail('invalid-argument', '', `a second gate (the first is action ${gateAt})`);
      gateAt = actionIndex;
      for (const [position, id] of action.requirementIds.entries()) {
        const item = requirements.get(id);
        if (item === undefined) {
          throw fail('not-found', `requirementIds.${position}`, `requirement "${id}" is in no TODO`, [
            ...requirements.keys(),
          ]);
        }
        if (item.status === 'cancelled') {
          throw fail('invalid-argument', `requirementIds.${position}`, `requirement "${id}" is cancelled`);
        }
      }
    }
  }
  const gate = gateAt === undefined ? undefined : decision.actions[gateAt];
  if (reworkAt !== undefined && gate?.type === 'gate' && gate.verdict === 'pass') {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: `action ${gateAt} (gate): a passing gate contradicts the rework of action ${reworkAt}`,
      path: `actions.${gateAt}.verdict`,
      details: { actionIndex: gateAt, type: 'gate' },
    });
  }
}
