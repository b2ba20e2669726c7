export { COMPRESSION_FILE } from './compression-file.ts';
export { CALLS_FOLDER, createFileSessionStore, type FileSessionStoreOptions } from './file-session-store.ts';
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
