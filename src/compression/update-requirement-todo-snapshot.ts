import type { LanguageModel } from 'ai';
import { CtxloomError, type Message, messageText, type TokenCounter } from '../core/index.ts';
import { applyRequirementDelta } from './apply-requirement-delta.ts';
import { buildRequirementTodoView } from './build-requirement-todo-view.ts';
import { createCharacterBound } from './character-bound.ts';
import {
  createModelRequirementProposer,
  type RequirementProposer,
  type RequirementProposerInput,
} from './requirement-proposer.ts';
import type { RequirementTodoDelta, RequirementTodoSnapshot } from './requirement-schema.ts';
import { resolveRequirementProposal } from './resolve-requirement-proposal.ts';
import type { CitableMessage, RequirementRejection } from './validate-requirement-delta.ts';

/** Options of {@link updateRequirementTodoSnapshot}. Give `model` or `proposer`. */
export interface UpdateRequirementTodoSnapshotOptions {
  /** Model asked for a structured proposal (AI SDK structured output). */
  model?: LanguageModel;
  /** Alternative to `model`, e.g. {@link createHeuristicRequirementProposer} offline. */
  proposer?: RequirementProposer;
  snapshot: RequirementTodoSnapshot;
  /** The user's newest message; its `id` is what anchors cite. */
  userMessage: Message;
  /** 0-based index of this user turn in the session. */
  turn: number;
  /** Counter bounding the view sent to the model; default 1 token per character (a safe upper bound). */
  counter?: TokenCounter;
  /** Tokens of TODO view sent to the model. Default 2000. */
  maxViewTokens?: number;
  signal?: AbortSignal;
  /** Receives the compile of the proposer's model call before it is sent (see `RequirementProposerInput.onCall`). */
  onCall?: RequirementProposerInput['onCall'];
}

/**
 * Result: `applied` (new snapshot and the applied delta), `unchanged` (no requirement in the
 * message), `duplicate` (this message was already applied), `rejected` (malformed output or an
 * invalid op; the snapshot is the input one and `rejections` say why).
 */
export interface UpdateRequirementTodoSnapshotResult {
  status: 'applied' | 'unchanged' | 'duplicate' | 'rejected';
  snapshot: RequirementTodoSnapshot;
  delta: RequirementTodoDelta | null;
  rejections: RequirementRejection[];
  /** Label of the proposer that produced the ops (`model:…`, `offline-heuristic`, or `custom`). */
  source: string;
}

/**
 * Incrementally updates a requirement TODO from one user message (seed 004 §2.1): the model
 * sees the bounded view and the message, proposes ops with verbatim quotes, ctxloom assigns
 * ids and anchors, validates, and applies all or nothing.
 * @example
 * const { snapshot, delta } = await updateRequirementTodoSnapshot({ model, snapshot, userMessage, turn: 3 });
 */
export async function updateRequirementTodoSnapshot(
  options: UpdateRequirementTodoSnapshotOptions,
): Promise<UpdateRequirementTodoSnapshotResult> {
  const proposer =
    options.proposer ??
    (options.model ? createModelRequirementProposer({ model: options.model }) : undefined);
  if (proposer === undefined) {
    throw new CtxloomError({ code: 'invalid-argument', message: 'give model or proposer', path: 'model' });
  }
  const { snapshot } = options;
  const source = proposer.label ?? 'custom';
  const message: CitableMessage = {
    id: options.userMessage.id,
    turnIndex: options.turn,
    text: messageText(options.userMessage),
  };
  const view = buildRequirementTodoView(snapshot, {
    counter: options.counter ?? createCharacterBound(),
    maxTokens: options.maxViewTokens ?? 2000,
  });
  const proposed = await proposer({
    view: view.text,
    snapshot,
    message,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.onCall === undefined ? {} : { onCall: options.onCall }),
  });
  if (!proposed.ok) {
    return {
      status: 'rejected',
      snapshot,
      delta: null,
      rejections: [{ opIndex: null, reason: 'malformed-output', message: proposed.message }],
      source,
    };
  }
  const delta = resolveRequirementProposal({ snapshot, proposal: proposed.proposal, message });
  if (delta.ops.length === 0) return { status: 'unchanged', snapshot, delta, rejections: [], source };
  const applied = applyRequirementDelta({ snapshot, delta, messages: [message] });
  return {
    status: applied.status,
    snapshot: applied.snapshot,
    delta,
    rejections: applied.rejections,
    source,
  };
}
