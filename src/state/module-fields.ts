import type { BlackboardKey } from './types.ts';

/**
 * Which fields each StateBuilder module owns (seed 002). Every Blackboard field belongs to
 * exactly one module; only that module writes it.
 */
export const MODULE_FIELDS = {
  session: ['namespace', 'session_id'],
  routing: [
    'active_agent',
    'assigned_task',
    'last_agent_status',
    'last_agent_failure_kind',
    'last_agent_error',
  ],
  messages: ['messages', 'processed_inputs'],
  deliverables: ['deliverable_keys'],
  todo: ['todo'],
  compression: ['compression__context', 'compression_through'],
  react: ['goal', 'plan', 'reflection', 'error_retry_count'],
  mapreduce: [
    'mapreduce_goal',
    'mapreduce_understanding',
    'mapreduce_tasks',
    'mapreduce_task',
    'mapreduce_results',
  ],
  timeline: ['timeline'],
} as const satisfies Record<string, readonly BlackboardKey[]>;

/** A StateBuilder module name. */
export type ModuleName = keyof typeof MODULE_FIELDS;

/** Every Blackboard field, in module order. */
export const BLACKBOARD_KEYS: readonly BlackboardKey[] = Object.values(MODULE_FIELDS).flat();

/** Fields with a reducer: never written as plain values. */
export const REDUCER_KEYS: ReadonlySet<BlackboardKey> = new Set([
  'messages',
  'processed_inputs',
  'mapreduce_results',
  'timeline',
]);
