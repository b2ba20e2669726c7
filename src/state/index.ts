export {
  Blackboard,
  type BlackboardDefinition,
  type BlackboardOptions,
  createBlackboard,
} from './blackboard.ts';
export { humanMessageId, newLocalId } from './message-ids.ts';
export { BLACKBOARD_KEYS } from './module-fields.ts';
export type { CompressionModule } from './modules/compression-module.ts';
export type { DeliverablesModule } from './modules/deliverables-module.ts';
export type { MapReduceModule, MapReduceSnapshot } from './modules/mapreduce-module.ts';
export type { MessagesModule, UserInput } from './modules/messages-module.ts';
export type { ReactModule, ReactSnapshot } from './modules/react-module.ts';
export type { RoutingModule, RoutingSnapshot } from './modules/routing-module.ts';
export type { SessionModule, SessionSnapshot } from './modules/session-module.ts';
export type { TimelineModule } from './modules/timeline-module.ts';
export type { TodoModule } from './modules/todo-module.ts';
export { PatchBuffer, type StatePatch } from './patch-buffer.ts';
export { StateBuilder, type StateBuilderOptions } from './state-builder.ts';
export type {
  AgentStatus,
  BlackboardKey,
  BlackboardState,
  FailureKind,
  MapReduceResult,
  MapReduceTask,
  Timeline,
  TimelineEntry,
  TodoItem,
  TodoSnapshot,
} from './types.ts';
