import {
  type CitableMessage,
  type CompressionState,
  createHeuristicRequirementProposer,
  parseManualCompressCommand,
  type RequirementProposer,
  scopedSnapshotOf,
} from '../compression/index.ts';
import {
  type CompiledContext,
  CtxloomError,
  type Message,
  messageText,
  type TokenCounter,
} from '../core/index.ts';
import { applyRouterDecision } from './apply-router-decision.ts';
import { buildRouterInput } from './build-router-input.ts';
import type { CommanderPatch } from './commander-patch.ts';
import { type RouteOutcome, routeUserMessage } from './route-user-message.ts';
import type { RouterConfig } from './router-config.ts';
import type { AgentDescriptor, CoordinationSnapshot, RouterReview } from './router-input.ts';
import type { SemanticRouter } from './semantic-router.ts';

/** Options of {@link processUserMessage}. */
export interface ProcessUserMessageOptions {
  state: CompressionState;
  agents: readonly AgentDescriptor[];
  userMessage: Message;
  /** 0-based user turn index of the message. */
  turn: number;
  router: SemanticRouter;
  config: RouterConfig;
  /** Counter for the bounded views given to the router. */
  counter: TokenCounter;
  coordination?: CoordinationSnapshot;
  stateSummary?: string;
  /** Extracts the answer's requirements when it resumes a pending request. Default: offline heuristic. */
  proposer?: RequirementProposer;
  signal?: AbortSignal;
  /**
   * Set when the commander reviews an agent's work on this (already handled) message: no
   * `/compress` command and no pending-request resume, the router judges the work.
   */
  review?: RouterReview;
  /** Receives the compile of each model call (the router's, the proposer's) before it is sent. */
  onCall?: (compiled: CompiledContext, caller: 'router' | 'proposer') => void | Promise<void>;
}

/** The route taken (`command` for `/compress`) and the one patch to apply. */
export interface ProcessedUserMessage {
  outcome: RouteOutcome | { type: 'command'; scope: 'all' | 'requirement' | 'artifacts' };
  patch: CommanderPatch;
}

/**
 * One user message through the control plane, in seed 004's order: an exact `/compress`
 * command turns on clipping; a pending human request resumes its agent (the answer's
 * requirements go to the asking agent's scoped TODO); otherwise the semantic router suggests
 * and the commander applies. Returns a patch; the caller persists it.
 */
export async function processUserMessage(options: ProcessUserMessageOptions): Promise<ProcessedUserMessage> {
  const { state, onCall } = options;
  const text = messageText(options.userMessage);
  const command = options.review === undefined ? parseManualCompressCommand(text) : undefined;
  if (command !== undefined) {
    return {
      outcome: { type: 'command', scope: command.scope },
      patch: {
        type: 'commander-patch',
        threadId: state.threadId,
        baseRevision: state.revision,
        next: { type: 'compress', scope: command.scope },
        forceContextClipping: { scope: command.scope },
        actions: [],
      },
    };
  }
  const userMessage: CitableMessage = { id: options.userMessage.id, turnIndex: options.turn, text };
  const input = buildRouterInput({
    state,
    agents: options.agents,
    userMessage,
    counter: options.counter,
    ...(options.coordination === undefined ? {} : { coordination: options.coordination }),
    ...(options.stateSummary === undefined ? {} : { stateSummary: options.stateSummary }),
    ...(options.review === undefined ? {} : { review: options.review }),
  });
  const outcome = await routeUserMessage({
    input,
    router: options.router,
    config: options.config,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(onCall === undefined ? {} : { onCall: (compiled: CompiledContext) => onCall(compiled, 'router') }),
  });
  if (outcome.type === 'resume' && options.review !== undefined) {
    // A review never answers a pending question: only the user's next message does.
    throw new CtxloomError({
      code: 'invalid-argument',
      message:
        'a review cannot run while a human request is pending; drop pending requests from coordination',
      path: 'coordination.pendingRequests',
    });
  }
  if (outcome.type !== 'resume') {
    return {
      outcome,
      patch: applyRouterDecision({
        state,
        outcome,
        userMessage,
        config: options.config,
        agents: options.agents,
      }),
    };
  }
  const proposer = options.proposer ?? createHeuristicRequirementProposer();
  const proposed = await proposer({
    view: input.scopedTodoViews[outcome.attributedTo] ?? '',
    snapshot: scopedSnapshotOf(state.requirements, outcome.attributedTo),
    message: userMessage,
    ...(onCall === undefined ? {} : { onCall: (compiled: CompiledContext) => onCall(compiled, 'proposer') }),
  });
  return {
    outcome,
    patch: applyRouterDecision({
      state,
      outcome,
      userMessage,
      config: options.config,
      agents: options.agents,
      ...(proposed.ok ? { attributedProposal: proposed.proposal } : {}),
    }),
  };
}
