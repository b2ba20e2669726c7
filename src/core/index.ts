export { type ContextBlock, type CreateBlockInput, createBlock, type Provenance } from './block.ts';
export {
  CtxloomError,
  type CtxloomErrorCode,
  type CtxloomErrorOptions,
  ERROR_CODES,
  type ErrorLocation,
} from './errors.ts';
export { fingerprintContent, hashText } from './fingerprint.ts';
export {
  assertContextKey,
  type ContextKey,
  type CustomLayerOptions,
  createLayerRegistry,
  DEFAULT_LAYERS,
  isContextKey,
  type LayerDefinition,
  type LayerKind,
  type LayerPosition,
  type LayerRegistry,
} from './layers.ts';
export {
  type FilePart,
  isErrorResult,
  type JsonValue,
  type Message,
  type MessageRole,
  messageParts,
  messageText,
  type Part,
  partText,
  type ReasoningPart,
  type TextPart,
  type ToolCallPart,
  type ToolResultOutput,
  type ToolResultPart,
  toolOutputText,
} from './message.ts';
export type { CollectRequest, ContextSource, TaskPhase, TokenBudget } from './source.ts';
export {
  type CachedTokenCounter,
  type CreateTokenCounterOptions,
  countMessagesWith,
  createTokenCounter,
  type MessageOverhead,
  NO_MESSAGE_OVERHEAD,
  OPENAI_MESSAGE_OVERHEAD,
  type TokenCacheOptions,
  type TokenCacheStats,
  type TokenCounter,
  withTokenCache,
} from './tokens.ts';
