export { type ApplyRouterDecisionOptions, applyRouterDecision } from './apply-router-decision.ts';
export { type BuildRouterInputOptions, buildRouterInput } from './build-router-input.ts';
export {
  applyCommanderPatch,
  type CommanderActionReport,
  type CommanderNext,
  type CommanderPatch,
  patchChangesState,
} from './commander-patch.ts';
export { createLexicalRouter } from './lexical-router.ts';
export {
  type ProcessedUserMessage,
  type ProcessUserMessageOptions,
  processUserMessage,
} from './process-user-message.ts';
export { type RouteOutcome, type RouteUserMessageOptions, routeUserMessage } from './route-user-message.ts';
export { DEFAULT_ROUTER_CONFIG, type RouterConfig, resolveRouterConfig } from './router-config.ts';
export type { AgentDescriptor, CoordinationSnapshot, PendingRequest, RouterInput } from './router-input.ts';
export { formatRouterPrompt, ROUTER_INSTRUCTIONS } from './router-prompt.ts';
export {
  ROUTER_ACTION_TYPES,
  type RouterAction,
  RouterActionSchema,
  type RouterActionType,
  type RouterDecision,
  RouterDecisionSchema,
} from './router-schema.ts';
export {
  createModelRouter,
  type ModelRouterOptions,
  type SemanticRouter,
  type SemanticRouterResult,
} from './semantic-router.ts';
export { tokenizeTerms } from './tokenize-terms.ts';
export {
  type RouterRejectionReason,
  type RouterValidation,
  validateRouterDecision,
} from './validate-router-decision.ts';
