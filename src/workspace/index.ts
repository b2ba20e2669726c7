export * from './blocks/index.ts';
export {
  type CompileWorkspaceContextOptions,
  compileLoadedSession,
  compileWorkspaceContext,
  DEFAULT_MODEL,
  type PreparedWorkspaceCompile,
  prepareLoadedSession,
  type WorkspaceCompileOptions,
  type WorkspaceContext,
} from './compile/compile-workspace-context.ts';
export {
  type EmitFormat,
  type EmittedContext,
  emitWorkspaceContext,
  selectEmitFormat,
} from './compile/emit-workspace-context.ts';
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
  deliveredManifestReferences,
  type MergedQuery,
  type MergeReferencesOptions,
  manifestReferenceKey,
  mergeReferences,
  referencedPaths,
  toReference,
} from './compile/merge-references.ts';
export { type PromptFile, type ResolvedSources, resolveSources } from './compile/resolve-sources.ts';
export {
  deliveredInjections,
  injectionKey,
  type SelectInjectionsOptions,
  selectInjections,
} from './compile/select-injections.ts';
export { type SelectProfileBlocksOptions, selectProfileBlocks } from './compile/select-profile-blocks.ts';
export * from './config/index.ts';
export { parseJsonText } from './json/parse-json-text.ts';
export {
  type JsonNode,
  locateJsonPath,
  MAX_JSON_DEPTH,
  parseJsonTree,
  type TextPosition,
} from './json/parse-json-tree.ts';
export { applyMemoryCuration, type PlaceholderLocale } from './memory/apply-memory-curation.ts';
export {
  foldMemoryEvents,
  MEMORY_LOG_VERSION,
  type MemoryEvent,
  type MemoryLog,
  type MemoryStatus,
  memoryLogSchema,
} from './memory/memory-event.ts';
export * from './references/index.ts';
export * from './sandbox/index.ts';
export { type CreateSessionOptions, createSession } from './session/create-session.ts';
export {
  appendMessages,
  MEMORY_FILE,
  MESSAGES_FILE,
  type MemoryEventInput,
  parseMemoryLog,
  parseMessages,
  type RecordOptions,
  readMemoryLog,
  readMessages,
  recordMemoryEvent,
  recordMemoryEvents,
} from './session/session-store.ts';
export { parseSessionsIndex, type SessionRecord, sessionRecordSchema } from './session/sessions-index.ts';
export {
  createWorkspaceBlocksSource,
  type WorkspaceBlocksSourceOptions,
} from './sources/create-workspace-blocks-source.ts';
export * from './tools/index.ts';
export {
  DEFAULT_GLOBAL_FILES,
  type OpenWorkspaceOptions,
  openWorkspace,
  type ParsedFile,
  type ReadParsedOptions,
  type Workspace,
} from './workspace.ts';
