import type { BaseMessage } from '@langchain/core/messages';
import type { JsonValue } from '../core/message.ts';

/** How the last agent run ended (`routing.finishAgent`). */
export type AgentStatus = 'completed' | 'failed' | 'aborted';

/** Why the last agent run failed, when it did. */
export type FailureKind = 'model' | 'tool' | 'timeout' | 'validation' | 'budget' | 'interrupted' | 'unknown';

/** One item of the structured TODO snapshot (`todo` field). */
export interface TodoItem {
  id: string;
  title: string;
  status: 'pending' | 'in_progress' | 'done' | 'blocked';
  note?: string | undefined;
}

/** The `todo` field: a structured snapshot, replaced as a whole. */
export interface TodoSnapshot {
  items: TodoItem[];
}

/** One unit of work of a MapReduce plan. */
export interface MapReduceTask {
  /** Unique within the plan; results are keyed by it (a re-run never duplicates one). */
  id: string;
  description: string;
  /** Agent that should run it; default the process's worker agent. */
  agentId?: string | undefined;
}

/** The outcome of one MapReduce task (`mapreduce_results` items). */
export interface MapReduceResult {
  taskId: string;
  agentId?: string | undefined;
  status: 'ok' | 'failed';
  output: string;
  error?: string | undefined;
}

/** One timeline entry: what happened, when (epoch milliseconds), by which agent. */
export interface TimelineEntry {
  atMs: number;
  kind: string;
  text: string;
  agentId?: string | undefined;
  data?: JsonValue | undefined;
}

/** The `timeline` field: a delta channel; `timeline.flush()` appends the node's entries. */
export interface Timeline {
  entries: TimelineEntry[];
}

/**
 * The Blackboard's values, by field. Field names follow seed 002 (snake_case, as LangGraph
 * state keys); `processed_inputs` is the idempotency ledger the issue adds to `memory`.
 */
export interface BlackboardState {
  // session
  namespace: string;
  session_id: string;
  // routing
  active_agent: string | null;
  assigned_task: string | null;
  last_agent_status: AgentStatus | null;
  last_agent_failure_kind: FailureKind | null;
  last_agent_error: string | null;
  // messages
  messages: BaseMessage[];
  processed_inputs: string[];
  // deliverables
  deliverable_keys: string[];
  // todo
  todo: TodoSnapshot | null;
  // compression
  compression__context: string;
  /** Newest message `compression__context` covers; `null` when it covers none (or none is stored). */
  compression_through: string | null;
  // react
  goal: string | null;
  plan: string[];
  reflection: string | null;
  error_retry_count: number;
  // mapreduce
  mapreduce_goal: string | null;
  mapreduce_understanding: string | null;
  mapreduce_tasks: MapReduceTask[];
  mapreduce_task: MapReduceTask | null;
  mapreduce_results: MapReduceResult[];
  // timeline
  timeline: Timeline;
}

/** A Blackboard field name. */
export type BlackboardKey = keyof BlackboardState;
