export { type CollectAgentContextInput, collectAgentContext } from './agents/collect-agent-context.ts';
export { type CreateReactAgentOptions, createReactAgent } from './agents/create-react-agent.ts';
export { type AgentDefinition, type AgentInput, defineAgent } from './agents/define-agent.ts';
export { type AgentNodeOptions, createAgentNode, type NodeFactoryOptions } from './agents/node-factory.ts';
export {
  type ProcessRole,
  type ProcessRule,
  type ProcessRuleOptions,
  processRule,
} from './agents/process-rules.ts';
export {
  type AgentRunResult,
  type CompactStage,
  type CompactStageInput,
  compileAgentCall,
  type RunAgentInput,
  runAgent,
} from './agents/run-agent.ts';
export { PLACEHOLDER_LOCALE_KEY, SESSION_LAYERS_KEY } from './agents/session-history.ts';
export { createTodoTool } from './agents/todo-tool.ts';
export type { CheckpointTables } from './checkpoint/checkpoint-schema.ts';
export { CheckpointVersionError, type CheckpointVersionKind } from './checkpoint/checkpoint-version-error.ts';
export { PostgresSaver, type PostgresSaverOptions } from './checkpoint/postgres-saver.ts';
export type { RecordCompression } from './checkpoint/record-codec.ts';
export {
  type PruneOptions,
  type PruneResult,
  SqlCheckpointSaver,
  type SqlCheckpointSaverOptions,
} from './checkpoint/sql-checkpoint-saver.ts';
export type { SqlDriver, SqlExecutor, SqlParam, SqlRow } from './checkpoint/sql-driver.ts';
export type { SnapshotStorage } from './checkpoint/sql-saver-options.ts';
export type { SqliteDurability } from './checkpoint/sqlite-driver.ts';
export { SqliteSaver, type SqliteSaverOptions } from './checkpoint/sqlite-saver.ts';
export {
  type AcquireThreadOptions,
  ThreadBusyError,
  type ThreadLease,
  type ThreadLeases,
} from './checkpoint/thread-lease.ts';
export {
  type CheckpointCompressionStoreOptions,
  createCheckpointCompressionStore,
} from './compression/checkpoint-compression-store.ts';
export {
  type CommanderRouterOptions,
  createCommanderRouter,
} from './compression/commander-router.ts';
export {
  type CommanderRecord,
  type CompactionRecord,
  type CoordinationState,
  createCompressionBlackboard,
  type LastTurnRecord,
} from './compression/compression-blackboard.ts';
export {
  type CompressionCompactStageOptions,
  compressionSources,
  createCompressionCompactStage,
} from './compression/compression-compact-stage.ts';
export { CompressionStateModule } from './compression/compression-state-module.ts';
export {
  createDynamicProcess,
  type DynamicProcessOptions,
  type RouteDecision,
  type RouterView,
} from './processes/dynamic.ts';
export { createHierarchicalProcess, type HierarchicalProcessOptions } from './processes/hierarchical.ts';
export { createMapReduceProcess, type MapReduceProcessOptions } from './processes/mapreduce.ts';
export { type GuardNodeOptions, guardNode } from './processes/node-guard.ts';
export type { CompiledProcess, ProcessGraph } from './processes/process-graph.ts';
export type { ProcessOptions } from './processes/process-options.ts';
export { createReactProcess, type ReactProcessOptions } from './processes/react.ts';
export { createSequentialProcess, type SequentialProcessOptions } from './processes/sequential.ts';
export {
  type GraphStateView,
  type InvokableGraph,
  type RunWatch,
  type SubmitInputOptions,
  type SubmitInputResult,
  submitInput,
  type WatchedMode,
} from './session/submit-input.ts';
