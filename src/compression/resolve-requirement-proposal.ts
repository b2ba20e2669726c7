import { requirementItemId } from './create-requirement-todo-snapshot.ts';
import type { RequirementProposal } from './requirement-proposal-schema.ts';
import type { RequirementOp, RequirementTodoDelta, RequirementTodoSnapshot } from './requirement-schema.ts';
import type { CitableMessage } from './validate-requirement-delta.ts';

/** Options of {@link resolveRequirementProposal}. */
export interface ResolveRequirementProposalOptions {
  snapshot: RequirementTodoSnapshot;
  proposal: RequirementProposal;
  /** The user message the proposal was made for; every anchor cites it. */
  message: CitableMessage;
  /** Delta id; default `<message id>@<G | agentId>`, so one message changes a snapshot once. */
  deltaId?: string;
}

/**
 * Turns a proposal into a delta: assigns the next ids to `add`s, anchors every op to the
 * message (turn, id, quote) and drops `null` fields. Does not validate; pass the result to
 * {@link applyRequirementDelta}. Pure.
 */
export function resolveRequirementProposal(options: ResolveRequirementProposalOptions): RequirementTodoDelta {
  const { snapshot, message } = options;
  let sequence = snapshot.nextSequence;
  const ops = options.proposal.ops.map((proposed): RequirementOp => {
    const evidence = { turnIndex: message.turnIndex, messageId: message.id, quote: proposed.quote };
    switch (proposed.op) {
      case 'add':
        return {
          op: 'add',
          id: requirementItemId(snapshot.agentId, sequence++),
          type: proposed.type,
          priority: proposed.priority,
          text: proposed.text.trim(),
          evidence,
        };
      case 'update': {
        const changes: Extract<RequirementOp, { op: 'update' }>['changes'] = {};
        if (proposed.text !== null) changes.text = proposed.text.trim();
        if (proposed.type !== null) changes.type = proposed.type;
        if (proposed.priority !== null) changes.priority = proposed.priority;
        if (proposed.status !== null) changes.status = proposed.status;
        return { op: 'update', id: proposed.id, changes, evidence };
      }
      case 'cancel':
        return { op: 'cancel', id: proposed.id, evidence };
      default:
        return { op: 'reset', evidence };
    }
  });
  return {
    id: options.deltaId ?? `${message.id}@${snapshot.agentId ?? 'G'}`,
    threadId: snapshot.threadId,
    agentId: snapshot.agentId,
    baseRevision: snapshot.revision,
    ops,
  };
}
