export {
  type Block,
  type BlockMatch,
  type BlockSidecar,
  type BlockSource,
  findChunkCuts,
  flattenBlocks,
  getBlockById,
  parseJsonBlocks,
  parseMarkdownBlocks,
  type ResolveBlockOptions,
  type ResolvedBlock,
  resolveBlock,
  type SyncBlockSidecarOptions,
  syncBlockSidecar,
} from './blocks/index.ts';
export {
  DEFAULT_MODEL,
  type PreparedWorkspaceCompile,
  prepareLoadedSession,
  type WorkspaceCompileOptions,
  type WorkspaceContext,
} from './compile/compile-workspace-context.ts';
export { type EmittedContext, emitWorkspaceContext } from './compile/emit-workspace-context.ts';
export {
  type BuildQueryMessageOptions,
  buildQueryMessage,
  type FormatHistoryOptions,
  formatHistory,
} from './compile/format-history.ts';
export {
  CONTEXT_CONFIG_FILE,
  type LoadedSession,
  type LoadSessionOptions,
  loadSession,
} from './compile/load-session.ts';
export {
  type MergedQuery,
  type MergeReferencesOptions,
  mergeReferences,
} from './compile/merge-references.ts';
export { type PromptFile, type ResolvedSources, resolveSources } from './compile/resolve-sources.ts';
export { type SelectInjectionsOptions, selectInjections } from './compile/select-injections.ts';
export { type SelectProfileBlocksOptions, selectProfileBlocks } from './compile/select-profile-blocks.ts';
export {
  type SessionBudget,
  type SessionComposition,
  type SessionHistoryLayer,
  type SessionLayers,
  type SessionQuery,
  sessionLayers,
} from './compile/session-layers.ts';
export {
  buildRetrievalDocuments,
  createWorkspaceRetrievalSource,
  WORKSPACE_RETRIEVAL_SOURCE,
  type WorkspaceRetrievalSourceOptions,
} from './compile/workspace-retrieval.ts';
export {
  CONTEXT_CONFIG_VERSION,
  type ConfigReference,
  type ContextConfig,
  type ContextConfigInput,
  contextConfigSchema,
  type Injection,
  parseContextConfig,
  safeParseContextConfig,
} from './config/index.ts';
export { applyCuration, type PlaceholderLocale } from './curation/apply-curation.ts';
export {
  CURATION_LOG_VERSION,
  type CurationEvent,
  type CurationLog,
  type CurationStatus,
  curationLogSchema,
  foldCurationEvents,
} from './curation/curation-event.ts';
export { parseJsonText } from './json/parse-json-text.ts';
export {
  type BadReference,
  type BadReferenceReason,
  type BlockReference,
  badReferencesOf,
  type LineReference,
  type LoadedFile,
  type Reference,
  type ResolvedReference,
} from './references/index.ts';
export {
  createSandbox,
  type ListOptions,
  mapFsError,
  type Sandbox,
  type SandboxEntry,
  type SandboxOptions,
  type TextEdit,
  type ValidatePathOptions,
  validateRelativePath,
} from './sandbox/index.ts';
export { type CreateSessionOptions, createSession } from './session/create-session.ts';
export {
  foldName,
  RESERVED_SESSION_NAMES,
  type ReservedName,
  reservedNameOf,
} from './session/reserved-files.ts';
export {
  appendMessages,
  CURATION_FILE,
  type CurationEventInput,
  MESSAGES_FILE,
  parseMessages,
  type RecordOptions,
  readCurationLog,
  readMessages,
  recordCurationEvent,
  recordCurationEvents,
} from './session/session-store.ts';
export { parseSessionsIndex, type SessionRecord, sessionRecordSchema } from './session/sessions-index.ts';
export {
  createWorkspaceBlocksSource,
  type WorkspaceBlocksSourceOptions,
} from './sources/create-workspace-blocks-source.ts';
export {
  type CurateMessages,
  createWorkspaceTools,
  type DismissRequest,
  describeReadFileParts,
  dismissMemoryInput,
  type WorkspaceTools,
  type WorkspaceToolsOptions,
} from './tools/index.ts';
export {
  DEFAULT_GLOBAL_FILES,
  type OpenWorkspaceOptions,
  openWorkspace,
  type ParsedFile,
  type ReadParsedOptions,
  type Workspace,
} from './workspace.ts';
