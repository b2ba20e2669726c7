export { type ApplyRouterDecisionOptions, applyRouterDecision } from './apply-router-decision.ts';
export {
  applyCommanderPatch,
  type CommanderActionReport,
  type CommanderNext,
  type CommanderPatch,
} from './commander-patch.ts';
export { createLexicalRouter } from './lexical-router.ts';
export {
  type ProcessedUserMessage,
  type ProcessUserMessageOptions,
  processUserMessage,
} from './process-user-message.ts';
export type { RouteOutcome } from './route-user-message.ts';
export { DEFAULT_ROUTER_CONFIG, type RouterConfig, resolveRouterConfig } from './router-config.ts';
export type {
  AgentDescriptor,
  CoordinationSnapshot,
  PendingRequest,
  RouterInput,
  RouterReview,
} from './router-input.ts';
export {
  ROUTER_ACTION_TYPES,
  type RouterAction,
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
export {
  type ValidateDecisionReferencesOptions,
  validateDecisionReferences,
} from './validate-decision-references.ts';
export {
  type RouterRejectionReason,
  type RouterValidation,
  validateRouterDecision,
} from './validate-router-decision.ts';
