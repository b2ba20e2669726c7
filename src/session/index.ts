export {
  type CallOutcome,
  type CallSpanInput,
  callOutcomeAttributes,
  callSpanAttributes,
  type SpanAttributes,
  type SpanAttributeValue,
} from './call-span-attributes.ts';
export {
  type CheckpointSessionStore,
  type CheckpointSessionStoreOptions,
  createCheckpointSessionStore,
  type HeldSessionWrites,
} from './checkpoint-session-store.ts';
export { type CompileSessionOptions, compileSession, type SessionCompile } from './compile-session.ts';
export type { CompressSessionResult, SummaryOutcome } from './compress-session.ts';
export { COMPRESSION_FILE } from './compression-file.ts';
export { createSessionEngine } from './create-session-engine.ts';
export { createFileSessionStore, type FileSessionStoreOptions } from './file-session-store.ts';
export {
  type OpenedSessionStore,
  type OpenSessionStoreOptions,
  openSessionStore,
  type SessionStoreSpec,
} from './open-session-store.ts';
export { createSessionBlackboard, type SessionBlackboardOptions } from './session-channels.ts';
export { parseSessionCommand, type SessionCommand } from './session-commands.ts';
export {
  type CompressOptions,
  type CompressOutcome,
  type CurateInput,
  DEFAULT_MODEL_TIMEOUT_MS,
  type EngineModel,
  type ModelErrorEvent,
  type SessionEngine,
  type SessionEngineOptions,
  type SessionProcess,
  type Turn,
  type TurnInput,
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
export type { ThreadLock } from './thread-lock.ts';
export {
  type CallSpan,
  type CallSpans,
  type CallTracer,
  globalCallTracer,
  type TraceCallsOptions,
  traceCalls,
} from './trace-calls.ts';
