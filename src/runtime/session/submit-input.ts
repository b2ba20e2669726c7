import type { RunnableConfig } from '@langchain/core/runnables';
import { type BlackboardDefinition, StateBuilder, type UserInput } from '../../state/index.ts';

/** The part of a compiled LangGraph graph the session entry needs. */
export interface InvokableGraph {
  getState(config: RunnableConfig): Promise<{ values: unknown }>;
  invoke(input: unknown, config: RunnableConfig): Promise<unknown>;
}

/** Options of {@link submitInput}. */
export interface SubmitInputOptions {
  graph: InvokableGraph;
  /** Must carry `configurable.thread_id` (the session's thread). */
  config: RunnableConfig;
  input: UserInput;
  /** Session identity written on the first input of a thread. */
  session?: { namespace: string; sessionId: string };
  blackboard?: Pick<BlackboardDefinition, 'keys' | 'extensionKeys'>;
}

/** What {@link submitInput} did. */
export interface SubmitInputResult {
  /** False when the input id was already processed: nothing ran, nothing was written. */
  accepted: boolean;
  /** The graph's final state (or the stored state, when not accepted). */
  state: unknown;
}

/**
 * The session entry: the one path by which a user input enters the state (seed 000: the
 * query enters exactly once). It reads the stored state, lets `memory.acceptInput` append
 * the HumanMessage with its deterministic id and record the input in the ledger, and runs
 * the graph with that one patch. A re-sent input (client retry, double submit, replay after
 * a crash) is a no-op, even after the history was compacted with REMOVE_ALL.
 *
 * To resume a run that stopped mid-way (crash, failed node), do not resubmit: call
 * `graph.invoke(null, config)`, or `graph.invoke(new Command({ resume }), config)` after an
 * interrupt.
 */
export async function submitInput(options: SubmitInputOptions): Promise<SubmitInputResult> {
  const snapshot = (await options.graph.getState(options.config)).values as Record<string, unknown>;
  const builderOptions = options.blackboard === undefined ? {} : { blackboard: options.blackboard };
  const sb = new StateBuilder(
    options.session !== undefined && !snapshot.session_id
      ? { ...snapshot, session_id: options.session.sessionId }
      : snapshot,
    builderOptions,
  );
  if (options.session !== undefined && !snapshot.session_id) sb.session.start(options.session);
  if (!sb.memory.acceptInput(options.input)) return { accepted: false, state: snapshot };
  const state = await options.graph.invoke(sb.patch(), options.config);
  return { accepted: true, state };
}
