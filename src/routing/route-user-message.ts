import type { RouterConfig } from './router-config.ts';
import type { PendingRequest, RouterInput } from './router-input.ts';
import type { RouterDecision } from './router-schema.ts';
import type { RouteOptions, SemanticRouter } from './semantic-router.ts';
import { type RouterRejectionReason, validateRouterDecision } from './validate-router-decision.ts';

/**
 * Where a user message goes:
 * - `resume`: a human request was pending; the message answers it and goes to its
 *   `resumeTo` (default `createdBy`) — decided deterministically, the router is not called.
 * - `routed`: the router's decision passed validation.
 * - `clarification`: the router's output was rejected; ask the user `question`.
 */
export type RouteOutcome =
  | { type: 'resume'; request: PendingRequest; targetAgent: string; attributedTo: string }
  | { type: 'routed'; decision: RouterDecision; source: string }
  | {
      type: 'clarification';
      reason: RouterRejectionReason | 'no-agents';
      message: string;
      question: string;
      source: string;
    };

/** Options of {@link routeUserMessage}. */
export interface RouteUserMessageOptions {
  input: RouterInput;
  router: SemanticRouter;
  config: RouterConfig;
  signal?: AbortSignal;
  /** Receives the compile of the router's model call before it is sent (see `RouteOptions.onCall`). */
  onCall?: RouteOptions['onCall'];
}

/**
 * Decides who a user message is for (seed 004 §4): a pending human request first
 * (deterministic), else the semantic router, whose output must name a listed agent, use only
 * that agent's allowed actions, match the strict schema and reach the confidence threshold —
 * anything else becomes a clarification. Changes no state.
 * @example
 * const outcome = await routeUserMessage({ input, router: createLexicalRouter(), config: DEFAULT_ROUTER_CONFIG });
 */
export async function routeUserMessage(options: RouteUserMessageOptions): Promise<RouteOutcome> {
  const { input, router, config } = options;
  const pending = input.coordination.pendingRequests.find(
    (request) => request.kind === 'human' && request.status === 'pending',
  );
  if (pending !== undefined) {
    return {
      type: 'resume',
      request: pending,
      targetAgent: pending.resumeTo ?? pending.createdBy,
      attributedTo: pending.createdBy,
    };
  }
  if (input.agents.length === 0) {
    return clarification('no-agents', 'no agents are registered', router.name);
  }
  const result = await router.route(input, {
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.onCall === undefined ? {} : { onCall: options.onCall }),
  });
  if (!result.ok) return clarification(result.reason, result.message, result.source);
  const validation = validateRouterDecision(result.raw, {
    agents: input.agents,
    threshold: config.confidenceThreshold,
  });
  if (!validation.ok) return clarification(validation.reason, validation.message, result.source);
  return { type: 'routed', decision: validation.decision, source: result.source };
}

function clarification(
  reason: RouterRejectionReason | 'no-agents',
  message: string,
  source: string,
): RouteOutcome {
  return {
    type: 'clarification',
    reason,
    message,
    source,
    question:
      reason === 'no-agents'
        ? 'No agent is available to handle this message.'
        : 'Which part of the task is this about (analysis, plan, SQL, or tests)? Please say a bit more.',
  };
}
