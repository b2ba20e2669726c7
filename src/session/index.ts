export {
  type CheckpointSessionStore,
  type CheckpointSessionStoreOptions,
  createCheckpointSessionStore,
  SESSION_STORE_NODE,
} from './checkpoint-session-store.ts';
export { COMPRESSION_FILE } from './compression-file.ts';
export { type CopySessionOptions, type CopySessionResult, copySession } from './copy-session.ts';
export { CALLS_FOLDER, createFileSessionStore, type FileSessionStoreOptions } from './file-session-store.ts';
export {
  type OpenedSessionStore,
  type OpenSessionStoreOptions,
  openSessionStore,
  parseSessionStoreSpec,
  type SessionStoreSpec,
} from './open-session-store.ts';
export { createPostgresThreadLock, type PostgresThreadLockOptions } from './postgres-thread-lock.ts';
export { SESSION_KEYS } from './session-channels.ts';
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
