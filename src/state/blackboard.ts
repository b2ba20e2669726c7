import { DeltaValue, MessagesDeltaValue, StateSchema, type StateSchemaField } from '@langchain/langgraph';
import { z } from 'zod';
import { CtxloomError } from '../core/errors.ts';
import { sessionMessagesReducer } from './messages-reducer.ts';
import { BLACKBOARD_KEYS } from './module-fields.ts';
import { appendResultsReducer, ledgerReducer, timelineReducer } from './reducers.ts';
import type { MapReduceResult, Timeline } from './types.ts';

const todoItem = z.object({
  id: z.string(),
  title: z.string(),
  status: z.enum(['pending', 'in_progress', 'done', 'blocked']),
  note: z.string().optional(),
});
const task = z.object({ id: z.string(), description: z.string(), agentId: z.string().optional() });
const result = z.object({
  taskId: z.string(),
  agentId: z.string().optional(),
  status: z.enum(['ok', 'failed']),
  output: z.string(),
  error: z.string().optional(),
});
const timelineEntry = z.object({
  atMs: z.number(),
  kind: z.string(),
  text: z.string(),
  agentId: z.string().optional(),
  data: z.json().optional(),
});
const nullableString = () => z.string().nullable().default(null);

/** Options of {@link createBlackboard}. */
export interface BlackboardOptions {
  /**
   * Application fields added to the Blackboard (any LangGraph state field: a zod schema,
   * `ReducedValue`, `DeltaValue`). A name that collides with a Blackboard field is an error.
   */
  extensions?: Record<string, StateSchemaField>;
  /**
   * How many updates of a delta channel (`messages`, `processed_inputs`, `mapreduce_results`,
   * `timeline`) between snapshots in the
   * checkpoint; in between only the appended items are stored. Higher: less storage, longer
   * replay on resume. Default 500; integer ≥ 1.
   */
  snapshotFrequency?: number;
}

function blackboardFields(snapshotFrequency: number) {
  return {
    namespace: z.string().default(''),
    session_id: z.string().default(''),
    active_agent: nullableString(),
    assigned_task: nullableString(),
    last_agent_status: z.enum(['completed', 'failed', 'aborted']).nullable().default(null),
    last_agent_failure_kind: z
      .enum(['model', 'tool', 'timeout', 'validation', 'budget', 'interrupted', 'unknown'])
      .nullable()
      .default(null),
    last_agent_error: nullableString(),
    messages: new DeltaValue(MessagesDeltaValue.valueSchema, {
      inputSchema: MessagesDeltaValue.inputSchema,
      reducer: sessionMessagesReducer,
      snapshotFrequency,
      // What LangGraph's own MessagesDeltaValue declares: Studio's chat view finds the
      // messages field by `langgraph_type` in the graph's JSON schema.
      jsonSchemaExtra: MessagesDeltaValue.jsonSchemaExtra ?? {
        langgraph_type: 'messages',
        description: 'A list of chat messages',
      },
    }),
    processed_inputs: new DeltaValue(
      z.array(z.string()).default(() => []),
      {
        inputSchema: z.array(z.string()),
        reducer: ledgerReducer,
        snapshotFrequency,
      },
    ),
    deliverable_keys: z.array(z.string()).default(() => []),
    todo: z
      .object({ items: z.array(todoItem) })
      .nullable()
      .default(null),
    compression__context: z.string().default(''),
    /** Newest message `compression__context` covers (later compiles skip it and older ones). */
    compression_through: nullableString(),
    goal: nullableString(),
    plan: z.array(z.string()).default(() => []),
    reflection: nullableString(),
    error_retry_count: z.number().int().min(0).default(0),
    mapreduce_goal: nullableString(),
    mapreduce_understanding: nullableString(),
    mapreduce_tasks: z.array(task).default(() => []),
    mapreduce_task: task.nullable().default(null),
    mapreduce_results: new DeltaValue(
      z.array(result).default(() => []),
      {
        inputSchema: z.array(result),
        reducer: appendResultsReducer as (
          state: MapReduceResult[],
          writes: MapReduceResult[][],
        ) => MapReduceResult[],
        snapshotFrequency,
      },
    ),
    timeline: new DeltaValue(
      z.object({ entries: z.array(timelineEntry) }).default(() => ({ entries: [] })),
      {
        inputSchema: z.object({ entries: z.array(timelineEntry) }),
        reducer: timelineReducer as (state: Timeline, writes: Timeline[]) => Timeline,
        snapshotFrequency,
      },
    ),
  };
}

/**
 * The Blackboard: ctxloom's LangGraph state schema with exactly the fields of seed 002's
 * modules (plus the `processed_inputs` idempotency ledger), and application extensions.
 * `messages`, `processed_inputs`, `mapreduce_results` and `timeline` are delta channels: a
 * checkpoint stores only what a step appended, plus a snapshot every `snapshotFrequency` updates.
 *
 * @example
 * ```ts
 * const { schema, keys } = createBlackboard({ extensions: { score: z.number().default(0) } });
 * const graph = new StateGraph(schema).addNode('agent', node)…
 * ```
 */
export function createBlackboard(options: BlackboardOptions = {}) {
  const snapshotFrequency = options.snapshotFrequency ?? 500;
  if (!Number.isInteger(snapshotFrequency) || snapshotFrequency < 1) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: 'snapshotFrequency must be an integer ≥ 1',
      path: 'snapshotFrequency',
    });
  }
  const extensions = options.extensions ?? {};
  for (const key of Object.keys(extensions)) {
    if ((BLACKBOARD_KEYS as readonly string[]).includes(key)) {
      throw new CtxloomError({
        code: 'invalid-config',
        message: `extension field ${key} collides with a Blackboard field`,
        path: `extensions.${key}`,
      });
    }
  }
  const fields = { ...blackboardFields(snapshotFrequency), ...extensions };
  return {
    schema: new StateSchema(fields),
    /** Every key a patch may name: the Blackboard's and the extensions'. */
    keys: new Set<string>(Object.keys(fields)),
    extensionKeys: new Set<string>(Object.keys(extensions)),
  };
}

/** What {@link createBlackboard} returns. */
export type BlackboardDefinition = ReturnType<typeof createBlackboard>;

/** The default Blackboard (no extensions). */
export const Blackboard = createBlackboard();
