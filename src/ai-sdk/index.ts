export { type CtxloomHookOptions, compileModelCall } from './compile-model-call.ts';
export { callToolDefinitions, countCallTokens } from './count-call-tokens.ts';
export { ctxloomMiddleware } from './ctxloom-middleware.ts';
export {
  type CtxloomPrepareStepOptions,
  ctxloomPrepareStep,
  toolDefinitions,
} from './ctxloom-prepare-step.ts';
export { type AnyModelMessage, type FromModelMessages, fromModelMessages } from './from-model-messages.ts';
export { openArtifactTool } from './open-artifact-tool.ts';
export { type CompiledStepCall, recompileEachStep, toStepCall } from './recompile-each-step.ts';
export { toModelPrompt } from './to-model-prompt.ts';
