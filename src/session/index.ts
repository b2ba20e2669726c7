export {
  type CheckpointSessionStore,
  type CheckpointSessionStoreOptions,
  createCheckpointSessionStore,
  SESSION_STORE_NODE,
} from './checkpoint-session-store.ts';
export { type CompileSessionOptions, compileSession, type SessionCompile } from './compile-session.ts';
export {
  type CompressSessionOptions,
  type CompressSessionResult,
  compressSession,
  DEFAULT_KEEP_LAST,
  DEFAULT_SUMMARY_MAX_TOKENS,
  type SummaryOutcome,
} from './compress-session.ts';
export { COMPRESSION_FILE } from './compression-file.ts';
export { type CopySessionOptions, type CopySessionResult, copySession } from './copy-session.ts';
export { createSessionEngine } from './create-session-engine.ts';
export { CALLS_FOLDER, createFileSessionStore, type FileSessionStoreOptions } from './file-session-store.ts';
export {
  type OpenedSessionStore,
  type OpenSessionStoreOptions,
  openSessionStore,
  parseSessionStoreSpec,
  type SessionStoreSpec,
} from './open-session-store.ts';
export { createPostgresThreadLock, type PostgresThreadLockOptions } from './postgres-thread-lock.ts';
export { describeCompress } from './run-turn.ts';
export { createSessionBlackboard, SESSION_KEYS, type SessionBlackboardOptions } from './session-channels.ts';
export { isCommandMessage, parseSessionCommand, type SessionCommand } from './session-commands.ts';
export type {
  CompressOptions,
  CompressOutcome,
  CurateInput,
  EngineModel,
  SessionEngine,
  SessionEngineOptions,
  SessionProcess,
  Turn,
  TurnInput,
} from './session-engine.ts';
export {
  CALL_LOG_CAPACITY,
  type CallRecord,
  type CurationEvent,
  type HistorySummary,
  type ListCallsOptions,
  type SessionCompression,
  type SessionState,
  type SessionStore,
} from './session-store.ts';
export { createProcessThreadLock, type ThreadLock } from './thread-lock.ts';
