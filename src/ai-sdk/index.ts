export type { CtxloomHookOptions } from './compile-model-call.ts';
export { type CompilePromptCallOptions, compilePromptCall } from './compile-prompt-call.ts';
export { type ConversationCuts, createConversationCuts } from './conversation-cuts.ts';
export { countCallTokens } from './count-call-tokens.ts';
export { ctxloomMiddleware } from './ctxloom-middleware.ts';
export {
  type CtxloomPrepareStep,
  type CtxloomPrepareStepOptions,
  ctxloomPrepareStep,
  toolDefinitions,
} from './ctxloom-prepare-step.ts';
export { type AnyModelMessage, type FromModelMessages, fromModelMessages } from './from-model-messages.ts';
export { openArtifactTool } from './open-artifact-tool.ts';
export { recompileEachStep } from './recompile-each-step.ts';
