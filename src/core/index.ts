export {
  type AdaptiveBudgetManagerOptions,
  createAdaptiveBudgetManager,
  DEFAULT_PHASE_SHIFTS,
  type PhaseShiftTable,
  phaseFromProgress,
  shiftRatios,
} from './adaptive-budget.ts';
export {
  type ArtifactHandle,
  type ArtifactHandleStore,
  artifactPlaceholder,
  createInMemoryArtifactStore,
  describeArtifact,
  type InMemoryArtifactStoreOptions,
  OPEN_ARTIFACT_DEFINITION,
  OPEN_ARTIFACT_TOOL,
  type ReadArtifactInput,
  readArtifact,
} from './artifact-handles.ts';
export { type ContextBlock, type CreateBlockInput, createBlock, type Provenance } from './block.ts';
export {
  type AllocateInput,
  allocateWithRatios,
  type BudgetManager,
  type BudgetManagerOptions,
  type BudgetPlan,
  capInputBudget,
  createBudgetManager,
  DEFAULT_ALLOCATION_RATIOS,
} from './budget.ts';
export { type CallRecord, fingerprintMessages, toCallRecord } from './call-record.ts';
export {
  type CollectBlocksInput,
  type CollectedContexts,
  collectBlocks,
  collectContexts,
  renderContexts,
  type SourceResult,
} from './collector.ts';
export { COMPRESSION_BLOCK_ID } from './compact.ts';
export { compileContext } from './compile.ts';
export {
  collectOnce,
  createStepCompiler,
  type StepCompiler,
  type StepCompilerInput,
} from './compile-step.ts';
export type { CompiledContext, CompileOptions, CompileRequest } from './compile-types.ts';
export {
  type ComposedMetadata,
  type ComposeInput,
  type ComposePolicy,
  compose,
  layerFilter,
  layerOf,
  toQueryMessage,
} from './compose.ts';
export { type DiffBlock, diffReports, type ReportDiff } from './diff-reports.ts';
export {
  type AiSdkMessage,
  type AiSdkSystemMessage,
  type AnthropicBlock,
  type AnthropicRequest,
  cacheBreakpoints,
  MAX_CACHE_BREAKPOINTS,
  type OpenAIChatMessage,
  type OpenAIUserContent,
  splitInstructions,
  type ToAiSdkOptions,
  type ToAnthropicOptions,
  toAiSdk,
  toAnthropic,
  toOpenAI,
} from './emit/index.ts';
export {
  CtxloomError,
  type CtxloomErrorCode,
  type CtxloomErrorOptions,
  ERROR_CODES,
  type ErrorLocation,
} from './errors.ts';
export { fingerprintContent, hashText } from './fingerprint.ts';
export { describeReason, type FormatReportOptions, formatReport } from './format-report.ts';
export {
  HISTORY_SOURCE,
  type HistoryBlockMetadata,
  historyBlockId,
  historyBlocks,
  historyToBlocks,
  type MessageMeasure,
  measureMessage,
  recencyPriority,
} from './history.ts';
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
  registerLayer,
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
export { createOrchestrator, type Orchestrator } from './orchestrator.ts';
export type {
  BlockSummary,
  CompactionAction,
  CompileReport,
  CompileWarning,
  DroppedSummary,
  LayerReport,
  MessageFingerprint,
  SourceReport,
} from './report.ts';
export { droppedCount } from './report.ts';
export {
  type DroppedBlock,
  type DropReason,
  type LayerGrant,
  type SelectInput,
  type Selection,
  selectBlocks,
} from './select.ts';
export type { CollectRequest, ContextSource, TaskPhase, TokenBudget } from './source.ts';
export { type SentenceSpan, sentenceSegments, splitSentences } from './split-sentences.ts';
export {
  type CompressionSummary,
  createExtractiveSummarizer,
  type SummarizeInput,
  type Summarizer,
  type SummaryResult,
  toSummaryResult,
} from './summarizer.ts';
export {
  type CachedTokenCounter,
  type CreateTokenCounterOptions,
  countMessage,
  countMessagesWith,
  countMessageWith,
  createTokenCounter,
  type MessageOverhead,
  NO_MESSAGE_OVERHEAD,
  OPENAI_MESSAGE_OVERHEAD,
  type TokenCacheOptions,
  type TokenCacheStats,
  type TokenCounter,
  withTokenCache,
} from './tokens.ts';
export { countToolDefinitions, type ToolDefinition, toolDefinitionText } from './tool-definitions.ts';
export { placeholderToolResults, type ToolResultPolicy } from './tool-result-placeholders.ts';
export { TRIM_MARKER, type TrimResult, trimToTokens } from './trim.ts';
