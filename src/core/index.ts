export {
  type AdaptiveBudgetManagerOptions,
  createAdaptiveBudgetManager,
  type PhaseShiftTable,
} from './adaptive-budget.ts';
export {
  type ArtifactHandle,
  type ArtifactHandleStore,
  createInMemoryArtifactStore,
  type InMemoryArtifactStoreOptions,
  OPEN_ARTIFACT_DEFINITION,
} from './artifact-handles.ts';
export {
  type ArtifactPage,
  type ReadArtifactInput,
  type ReadArtifactOptions,
  readArtifact,
} from './artifact-pages.ts';
export { type ContextBlock, type CreateBlockInput, createBlock, type Provenance } from './block.ts';
export {
  type AllocateInput,
  type BudgetManager,
  type BudgetManagerOptions,
  type BudgetPlan,
  createBudgetManager,
} from './budget.ts';
export type { CallDecision, CallRecord } from './call-record.ts';
export { compileContext } from './compile.ts';
export { createStepCompiler, type StepCompiler, type StepCompilerInput } from './compile-step.ts';
export type { CompiledContext, CompileOptions, CompileRequest } from './compile-types.ts';
export type { ComposePolicy } from './compose.ts';
export {
  conversationMessages,
  isModelMessage,
  type TurnError,
  turnErrorOf,
} from './conversation-messages.ts';
export { type CountedText, countJoined } from './count-joined.ts';
export { type DiffBlock, diffReports, type ReportDiff } from './diff-reports.ts';
export {
  type AiSdkMessage,
  type AiSdkSystemMessage,
  type AnthropicBlock,
  type AnthropicMessagesRequest,
  type AnthropicRequest,
  cacheBreakpoints,
  type OpenAIChatMessage,
  type OpenAIChatRequest,
  type OpenAIUserContent,
  type RequestBodyOptions,
  type ToAiSdkOptions,
  type ToAnthropicOptions,
  toAiSdk,
  toAnthropic,
  toAnthropicRequest,
  toOpenAI,
  toOpenAIRequest,
} from './emit/index.ts';
export {
  CtxloomError,
  type CtxloomErrorCode,
  type CtxloomErrorOptions,
  ERROR_CODES,
  type ErrorLocation,
} from './errors.ts';
export { type FormatReportOptions, formatReport } from './format-report.ts';
export {
  createHistoryCutStore,
  DEFAULT_HISTORY_KEEP_RATIO,
  type HistoryCutStore,
} from './history-cut.ts';
export {
  type ContextKey,
  type CustomLayerOptions,
  createLayerRegistry,
  type LayerDefinition,
  type LayerKind,
  type LayerPosition,
  type LayerRegistry,
  type LayerRegistryOptions,
} from './layers.ts';
export { historyBlockId } from './measure-messages.ts';
export {
  type FilePart,
  type JsonValue,
  type Message,
  type MessageRole,
  messageText,
  type Part,
  type ReasoningPart,
  type TaggedFileData,
  type TextPart,
  type ToolCallPart,
  type ToolResultContentPart,
  type ToolResultOutput,
  type ToolResultPart,
} from './message.ts';
export { createOrchestrator, type Orchestrator } from './orchestrator.ts';
export { type PlanHistoryCutInput, planHistoryCut } from './plan-history-cut.ts';
export type {
  BlockSummary,
  CompactionAction,
  CompileReport,
  CompileWarning,
  DroppedRun,
  DroppedSummary,
  DroppedTally,
  LayerReport,
  MessageFingerprint,
  SourceReport,
  ToolTokens,
} from './report.ts';
export { droppedByReason, droppedCount } from './report.ts';
export { isReservedMessageId } from './reserved-message-id.ts';
export {
  type RolledSummary,
  type RollSummaryInput,
  renderSummary,
  rollSummary,
  type SummaryPeriod,
  uncarriedIds,
} from './rolling-summary.ts';
export type { DroppedBlock, DropReason } from './select.ts';
export type { CollectRequest, ContextSource, TaskPhase, TokenBudget } from './source.ts';
export {
  type CompressionSummary,
  createExtractiveSummarizer,
  type SummarizeInput,
  type Summarizer,
  type SummaryResult,
} from './summarizer.ts';
export {
  type CachedTokenCounter,
  type CreateTokenCounterOptions,
  countMessage,
  createTokenCounter,
  type MessageOverhead,
  NO_MESSAGE_OVERHEAD,
  OPENAI_MESSAGE_OVERHEAD,
  type TokenCacheOptions,
  type TokenCacheStats,
  type TokenCounter,
  withSharedTokenCache,
  withTokenCache,
} from './tokens.ts';
export { countToolDefinitions, type ToolDefinition } from './tool-definitions.ts';
export type { ToolResultPolicy } from './tool-result-placeholders.ts';
