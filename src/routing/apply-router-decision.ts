import {
  applyRequirementDelta,
  type CitableMessage,
  type CompressionState,
  invalidateArtifact,
  type OpenQuestion,
  type ProposedRequirementOp,
  type RequirementProposal,
  type RequirementTodoSnapshot,
  resolveRequirementProposal,
  scopedSnapshotOf,
} from '../compression/index.ts';
import { CtxloomError } from '../core/index.ts';
import type { CommanderActionReport, CommanderNext, CommanderPatch } from './commander-patch.ts';
import type { RouteOutcome } from './route-user-message.ts';
import type { RouterConfig } from './router-config.ts';
import type { AgentDescriptor } from './router-input.ts';
import type { RouterDecision } from './router-schema.ts';
import { validateDecisionReferences } from './validate-decision-references.ts';

/** Options of {@link applyRouterDecision}. */
export interface ApplyRouterDecisionOptions {
  state: CompressionState;
  outcome: RouteOutcome;
  userMessage: CitableMessage;
  config: RouterConfig;
  /** For `resume`: requirement ops for the asking agent's scoped TODO (the answer's content). */
  attributedProposal?: RequirementProposal;
  /**
   * The listed agents a `rework` may name. Default: only the decision's target agent (its
   * descriptor is not needed for anything else).
   */
  agents?: readonly AgentDescriptor[];
}

/**
 * The commander (seed 004 §4): turns a route outcome into one {@link CommanderPatch},
 * deterministically, applying only whitelisted actions and never free text.
 * - `clarification` → ask the user; nothing else changes.
 * - `resume` → the asking agent resumes; its scoped TODO takes `attributedProposal`.
 * - `routed` → every action is applied to a draft: scoped ops to the target's TODO, global ops
 *   to the global TODO at or above `globalDeltaThreshold` (else an open question), artifact
 *   invalidations, clarification questions, a `rework` (its artifact's version invalidated; next
 *   the named agent redoes it) and a `gate` verdict (a pass ends the turn, a fail sends the work
 *   back to the target agent). All or nothing: if one action fails validation — first
 *   `validateDecisionReferences` (an unknown agent, artifact or requirement id is a typed
 *   `CtxloomError`), then each action's own checks — the patch only asks for clarification,
 *   reports it `rejected` with its cause (and the error's code and path) and every other
 *   action `rolled-back` naming that cause; nothing of the decision is written.
 *   Precedence of `next`: a clarification question, a rework, a gate, the target agent.
 */
export function applyRouterDecision(options: ApplyRouterDecisionOptions): CommanderPatch {
  const { state, outcome, userMessage } = options;
  const base = { type: 'commander-patch' as const, threadId: state.threadId, baseRevision: state.revision };
  if (outcome.type === 'clarification') {
    return {
      ...base,
      next: { type: 'clarify', question: outcome.question, reason: outcome.reason },
      actions: [],
    };
  }
  if (outcome.type === 'resume') {
    const patch: CommanderPatch = {
      ...base,
      next: { type: 'agent', agentId: outcome.targetAgent },
      resolvedRequestIds: [outcome.request.id],
      actions: [],
    };
    if (options.attributedProposal !== undefined && options.attributedProposal.ops.length > 0) {
      const snapshot = scopedSnapshotOf(state.requirements, outcome.attributedTo);
      const result = applyScoped(snapshot, options.attributedProposal.ops, userMessage, 0);
      patch.actions.push(result.report);
      if (result.snapshot !== snapshot) patch.scopedTodos = { [outcome.attributedTo]: result.snapshot };
    }
    return patch;
  }
  const { decision } = outcome;
  try {
    validateDecisionReferences(decision, {
      agents: options.agents ?? [{ id: decision.targetAgent, scope: '', allowedActions: [] }],
      state,
    });
  } catch (error) {
    if (!(error instanceof CtxloomError)) throw error;
    return refuse(base, decision, error);
  }
  let rework: Extract<CommanderNext, { type: 'rework' }> | undefined;
  let gate: Extract<CommanderNext, { type: 'gate' }> | undefined;
  const scoped = new Map<string, RequirementTodoSnapshot>();
  let global = state.requirements.global;
  let artifacts = state.artifacts;
  const openQuestions: OpenQuestion[] = [];
  const reports: CommanderActionReport[] = [];
  let question: string | undefined;
  // Replaying the same message must not queue the same question twice.
  const queue = (entry: Omit<OpenQuestion, 'id'>): boolean => {
    const same = (existing: OpenQuestion) =>
      existing.source === entry.source &&
      existing.text === entry.text &&
      existing.anchor?.messageId === entry.anchor?.messageId;
    if (state.requirements.openQuestions.some(same) || openQuestions.some(same)) return false;
    openQuestions.push({
      id: `Q${state.requirements.openQuestions.length + openQuestions.length + 1}`,
      ...entry,
    });
    return true;
  };
  const anchor = { turnIndex: userMessage.turnIndex, messageId: userMessage.id, quote: userMessage.text };

  for (const [actionIndex, action] of decision.actions.entries()) {
    switch (action.type) {
      case 'update_scoped_todo': {
        const snapshot =
          scoped.get(decision.targetAgent) ?? scopedSnapshotOf(state.requirements, decision.targetAgent);
        const result = applyScoped(snapshot, action.ops, userMessage, actionIndex);
        reports.push(result.report);
        scoped.set(decision.targetAgent, result.snapshot);
        break;
      }
      case 'propose_global_delta': {
        const delta = resolveRequirementProposal({
          snapshot: global,
          proposal: { ops: action.ops },
          message: userMessage,
          deltaId: `${userMessage.id}@G#${actionIndex}`,
        });
        const result = applyRequirementDelta({ snapshot: global, delta, messages: [userMessage] });
        if (result.status === 'rejected') {
          reports.push(
            rejected(actionIndex, action.type, result.rejections.map((r) => r.message).join('; ')),
          );
        } else if (action.confidence >= options.config.globalDeltaThreshold) {
          global = result.snapshot;
          reports.push({
            actionIndex,
            type: action.type,
            status: result.status === 'applied' ? 'applied' : 'no-op',
            message: `global revision ${global.revision}`,
          });
        } else {
          const queued = queue({
            text: `Should this apply to every agent? ${summarizeOps(action.ops)}`,
            source: 'low-confidence-global-delta',
            proposedOps: action.ops,
            confidence: action.confidence,
            anchor: { ...anchor, quote: action.ops[0]?.quote ?? userMessage.text },
            status: 'open',
          });
          reports.push({
            actionIndex,
            type: action.type,
            status: queued ? 'queued' : 'no-op',
            message: `confidence ${action.confidence} below ${options.config.globalDeltaThreshold}`,
          });
        }
        break;
      }
      case 'request_clarification':
        question = question === undefined ? action.question : `${question}\n${action.question}`;
        queue({
          text: action.question,
          source: 'clarification',
          proposedOps: [],
          confidence: decision.confidence,
          anchor,
          status: 'open',
        });
        reports.push({ actionIndex, type: action.type, status: 'applied', message: action.question });
        break;
      case 'invalidate_artifact': {
        const result = invalidateArtifact(artifacts, {
          artifactId: action.artifactId,
          reason: action.reason,
          turnIndex: userMessage.turnIndex,
        });
        if (result.status === 'not-found') {
          reports.push(rejected(actionIndex, action.type, `no artifact ${action.artifactId}`));
        } else {
          artifacts = result.state;
          reports.push({
            actionIndex,
            type: action.type,
            status: result.status === 'invalidated' ? 'applied' : 'no-op',
            message: action.artifactId,
          });
        }
        break;
      }
      case 'rework': {
        const result = invalidateArtifact(artifacts, {
          artifactId: action.artifactId,
          reason: `rework by ${action.agentId}: ${action.reason}`,
          turnIndex: userMessage.turnIndex,
        });
        if (result.status === 'invalidated') artifacts = result.state;
        rework = {
          type: 'rework',
          agentId: action.agentId,
          artifactId: action.artifactId,
          reason: action.reason,
        };
        reports.push({
          actionIndex,
          type: action.type,
          status: 'applied',
          message: `${action.agentId} redoes ${action.artifactId}: ${action.reason}`,
        });
        break;
      }
      case 'gate':
        gate = {
          type: 'gate',
          verdict: action.verdict,
          requirementIds: action.requirementIds,
          reason: action.reason,
          agentId: action.verdict === 'fail' ? decision.targetAgent : null,
        };
        reports.push({
          actionIndex,
          type: action.type,
          status: 'applied',
          message: `${action.verdict} ${action.requirementIds.join(', ')}: ${action.reason}`,
        });
        break;
    }
  }

  const rejections = reports.filter((report) => report.status === 'rejected');
  if (rejections.length > 0) {
    // All or nothing: nothing of this decision is written, so no action may read as applied.
    const cause = rejections
      .map((report) => `action ${report.actionIndex} (${report.type}) was rejected: ${report.message}`)
      .join('; ');
    return {
      ...base,
      next: {
        type: 'clarify',
        question: REFUSED_QUESTION,
        reason: 'invalid-action',
      },
      actions: reports.map((report) =>
        report.status === 'rejected'
          ? report
          : { ...report, status: 'rolled-back', message: `${report.message}; rolled back: ${cause}` },
      ),
    };
  }
  const patch: CommanderPatch = {
    ...base,
    next:
      question !== undefined
        ? { type: 'clarify', question, reason: 'router-asked' }
        : (rework ?? gate ?? { type: 'agent', agentId: decision.targetAgent }),
    actions: reports,
  };
  const changedScoped = [...scoped].filter(
    ([agentId, snapshot]) => snapshot !== state.requirements.scoped[agentId] && snapshot.revision > 0,
  );
  if (changedScoped.length > 0) patch.scopedTodos = Object.fromEntries(changedScoped);
  if (global !== state.requirements.global) patch.globalTodo = global;
  if (openQuestions.length > 0) patch.openQuestions = openQuestions;
  if (artifacts !== state.artifacts) patch.artifacts = artifacts;
  return patch;
}

function applyScoped(
  snapshot: RequirementTodoSnapshot,
  ops: ProposedRequirementOp[],
  message: CitableMessage,
  actionIndex: number,
): { snapshot: RequirementTodoSnapshot; report: CommanderActionReport } {
  const delta = resolveRequirementProposal({
    snapshot,
    proposal: { ops },
    message,
    deltaId: `${message.id}@${snapshot.agentId}#${actionIndex}`,
  });
  if (delta.ops.length === 0) {
    return {
      snapshot,
      report: { actionIndex, type: 'update_scoped_todo', status: 'no-op', message: 'no ops' },
    };
  }
  const result = applyRequirementDelta({ snapshot, delta, messages: [message] });
  if (result.status === 'rejected') {
    return {
      snapshot,
      report: rejected(actionIndex, 'update_scoped_todo', result.rejections.map((r) => r.message).join('; ')),
    };
  }
  return {
    snapshot: result.snapshot,
    report: {
      actionIndex,
      type: 'update_scoped_todo',
      status: result.status === 'applied' ? 'applied' : 'no-op',
      message: `${snapshot.agentId} revision ${result.snapshot.revision}`,
    },
  };
}

/** The whole decision refused by a typed error: nothing applied, every action reported. */
function refuse(
  base: Pick<CommanderPatch, 'type' | 'threadId' | 'baseRevision'>,
  decision: RouterDecision,
  error: CtxloomError,
): CommanderPatch {
  const at = error.details?.actionIndex;
  return {
    ...base,
    next: { type: 'clarify', question: REFUSED_QUESTION, reason: 'invalid-action' },
    actions: decision.actions.map((action, actionIndex) =>
      actionIndex === at
        ? {
            actionIndex,
            type: action.type,
            status: 'rejected',
            message: error.message,
            error: { code: error.code, path: error.path ?? `actions.${actionIndex}` },
          }
        : {
            actionIndex,
            type: action.type,
            status: 'rolled-back',
            message: `not applied: action ${String(at)} was rejected: ${error.message}`,
          },
    ),
  };
}

const REFUSED_QUESTION = 'I could not apply that safely. Could you rephrase or confirm what should change?';

function rejected(actionIndex: number, type: string, message: string): CommanderActionReport {
  return { actionIndex, type, status: 'rejected', message };
}

function summarizeOps(ops: readonly ProposedRequirementOp[]): string {
  return ops
    .map((op) =>
      op.op === 'add' ? `add "${op.text}"` : op.op === 'reset' ? 'reset all' : `${op.op} ${op.id}`,
    )
    .join('; ');
}
