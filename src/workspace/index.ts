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
  type JsonNode,
  locateJsonPath,
  MAX_JSON_DEPTH,
  parseJsonTree,
  type TextPosition,
} from './json/parse-json-tree.ts';
export * from './references/index.ts';
export * from './sandbox/index.ts';
export { type CreateSessionOptions, createSession } from './session/create-session.ts';
export {
  appendMessages,
  CURATION_FILE,
  type CurationEventInput,
  MESSAGES_FILE,
  parseCurationLog,
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
export * from './tools/index.ts';
export {
  DEFAULT_GLOBAL_FILES,
  type OpenWorkspaceOptions,
  openWorkspace,
  type ParsedFile,
  type ReadParsedOptions,
  type Workspace,
} from './workspace.ts';
