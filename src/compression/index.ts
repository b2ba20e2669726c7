export { type SentenceSpan, splitSentences } from '../core/split-sentences.ts';
export {
  type ApplyRequirementDeltaOptions,
  type ApplyRequirementDeltaResult,
  applyRequirementDelta,
} from './apply-requirement-delta.ts';
export {
  ARTIFACT_KINDS,
  type ArtifactEntry,
  ArtifactEntrySchema,
  type ArtifactIndex,
  ArtifactIndexSchema,
  type ArtifactKind,
  type ArtifactStoreState,
  ArtifactStoreStateSchema,
  type KeyFieldValue,
  type ToolEvidence,
  ToolEvidenceSchema,
} from './artifact-schema.ts';
export {
  type ArtifactContextView,
  type ArtifactContextViewOptions,
  buildArtifactContextView,
} from './build-artifact-context-view.ts';
export {
  buildRequirementTodoView,
  type RequirementTodoView,
  type RequirementTodoViewOptions,
} from './build-requirement-todo-view.ts';
export {
  type CompressionState,
  CompressionStateSchema,
  type CompressScope,
  CompressScopeSchema,
  createCompressionState,
} from './compression-state.ts';
export {
  assertRevision,
  type CompressionStore,
  createInMemoryCompressionStore,
} from './compression-store.ts';
export {
  type ArtifactStore,
  type CreateArtifactStoreOptions,
  createArtifactStore,
} from './create-artifact-store.ts';
export { createArtifactStoreState } from './create-artifact-store-state.ts';
export { type CompressionTriggerDecider, createCompressionTrigger } from './create-compression-trigger.ts';
export {
  type CreateRequirementTodoSnapshotOptions,
  createRequirementTodoSnapshot,
} from './create-requirement-todo-snapshot.ts';
export {
  type CompressionTrigger,
  type CompressionTriggerOptions,
  decideCompressionTrigger,
} from './decide-compression-trigger.ts';
export { createHeuristicRequirementProposer, REQUIREMENT_CUES } from './heuristic-requirement-proposer.ts';
export {
  type InvalidateArtifactInput,
  type InvalidateArtifactResult,
  invalidateArtifact,
} from './invalidate-artifact.ts';
export { type ManualCompressCommand, parseManualCompressCommand } from './parse-manual-compress-command.ts';
export {
  type BuildLimits,
  type BuiltMessages,
  type PreparedMessages,
  type PrepareWithinBudgetOptions,
  prepareWithinBudget,
} from './prepare-within-budget.ts';
export {
  type ArtifactOptions,
  type RegisterArtifactInput,
  type RegisterArtifactResult,
  registerArtifact,
} from './register-artifact.ts';
export { type RegisterToolEvidenceInput, registerToolEvidence } from './register-tool-evidence.ts';
export {
  type ProposedRequirementOp,
  ProposedRequirementOpSchema,
  type RequirementProposal,
  RequirementProposalSchema,
} from './requirement-proposal-schema.ts';
export {
  createModelRequirementProposer,
  type ModelRequirementProposerOptions,
  type RequirementProposer,
  type RequirementProposerInput,
  type RequirementProposerResult,
} from './requirement-proposer.ts';
export {
  type EvidenceAnchor,
  type EvidenceRecord,
  EvidenceRecordSchema,
  type RequirementItem,
  RequirementItemSchema,
  type RequirementOp,
  type RequirementPriority,
  type RequirementStatus,
  type RequirementTodoDelta,
  RequirementTodoDeltaSchema,
  type RequirementTodoSnapshot,
  RequirementTodoSnapshotSchema,
  type RequirementType,
} from './requirement-schema.ts';
export {
  createRequirementTodoState,
  type OpenQuestion,
  OpenQuestionSchema,
  type RequirementTodoState,
  RequirementTodoStateSchema,
  scopedSnapshotOf,
} from './requirement-todo-state.ts';
export {
  type ResolveRequirementProposalOptions,
  resolveRequirementProposal,
} from './resolve-requirement-proposal.ts';
export {
  createSqliteCompressionStore,
  type SqliteCompressionStoreOptions,
} from './sqlite-compression-store.ts';
export { type SqlSummary, summarizeSql } from './summarize-sql.ts';
export { formatThreadId, isThreadId, parseThreadId, type ThreadId, type ThreadIdParts } from './thread-id.ts';
export {
  type CompressionSourceOptions,
  createCompressionSource,
  type TodoContextBlocksOptions,
  todoContextBlocks,
} from './todo-context-blocks.ts';
export {
  type UpdateRequirementTodoSnapshotOptions,
  type UpdateRequirementTodoSnapshotResult,
  updateRequirementTodoSnapshot,
} from './update-requirement-todo-snapshot.ts';
export type {
  CitableMessage,
  RequirementRejection,
  RequirementRejectionReason,
} from './validate-requirement-delta.ts';
