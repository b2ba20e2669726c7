import type { RunnableConfig } from '@langchain/core/runnables';
import type { StreamMode } from '@langchain/langgraph';
import { type BlackboardDefinition, StateBuilder, type UserInput } from '../../state/index.ts';
import { hasThreadLeases, type ThreadLease } from '../checkpoint/thread-lease.ts';

/** The part of a compiled LangGraph graph the session entry needs. */
export interface InvokableGraph {
  getState(config: RunnableConfig): Promise<GraphStateView>;
  invoke(input: unknown, config: RunnableConfig): Promise<unknown>;
  /** LangGraph's `stream`, used to watch a run ({@link SubmitInputOptions.watch}); without it the run is not watched. */
  stream?(
    input: unknown,
    config: RunnableConfig & { streamMode: StreamMode[] },
  ): Promise<AsyncIterable<unknown>>;
  /** The graph's checkpointer; when it has thread leases (ctxloom's savers), each turn holds one. */
  checkpointer?: unknown;
}

/** What the session entry reads of `graph.getState()`. */
export interface GraphStateView {
  values: unknown;
  next: readonly string[];
  tasks: readonly { interrupts?: readonly unknown[] }[];
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
  /**
   * Finish a run a crash left unfinished (`invoke(null)`) before the new input. Default
   * true. A run paused at an `interrupt()` is never resumed here: answer it with
   * `graph.invoke(new Command({ resume }), config)`.
   */
  resumeUnfinished?: boolean;
  /**
   * One writer per thread. With a checkpointer that has thread leases (ctxloom's SQLite and
   * PostgreSQL savers), the whole turn — reading the state, finishing a crashed run, running
   * the input — holds the thread's lease, so no other process runs the thread meanwhile and
   * an unfinished run is resumed only when no live process holds it. A second writer waits up
   * to `waitMs` (default 0), then gets a `ThreadBusyError` (code `conflict`) with nothing
   * run or written. `false` skips the lease (single-process use).
   */
  lease?: false | { waitMs?: number };
  /**
   * Watch the run as it happens: the graph runs with LangGraph's `graph.stream` in these stream
   * modes (plus `values`, for the final state), and each chunk reaches `onChunk` with its mode
   * (`messages`: `[message or token chunk, metadata]`; `updates`: `{ [node]: patch }`).
   * `onAccepted` runs once the input is accepted, before the graph runs; a caller can start
   * answering then. Default: `graph.invoke`, nothing watched.
   */
  watch?: RunWatch;
}

/** What {@link SubmitInputOptions.watch} receives of a run. */
export interface RunWatch {
  modes: readonly WatchedMode[];
  onChunk: (mode: WatchedMode, chunk: unknown) => void;
  onAccepted?: () => void;
}

/** The LangGraph stream modes a run can be watched in. */
export type WatchedMode = 'messages' | 'updates' | 'custom';

/** What {@link submitInput} did. */
export interface SubmitInputResult {
  /** False when the input id was already processed: nothing ran, nothing was written. */
  accepted: boolean;
  /** The graph's final state (or the stored state, when not accepted). */
  state: unknown;
  /** True when an earlier run waits at an interrupt: the input was not accepted. */
  interrupted?: boolean;
}

/**
 * The session entry: the one path by which a user input enters the state (seed 000: the
 * query enters exactly once). It reads the stored state, lets `messages.acceptInput` append
 * the HumanMessage with its deterministic id and record the input in the ledger, and runs
 * the graph with that one patch. A re-sent input (client retry, double submit, replay after
 * a crash) is a no-op, even after the history was compacted with REMOVE_ALL.
 *
 * To resume a run that stopped mid-way (crash, failed node), do not resubmit: call
 * `graph.invoke(null, config)`, or `graph.invoke(new Command({ resume }), config)` after an
 * interrupt.
 */
export async function submitInput(options: SubmitInputOptions): Promise<SubmitInputResult> {
  const lease = await acquireLease(options);
  try {
    return await runTurn(options);
  } finally {
    await lease?.release();
  }
}

async function acquireLease(options: SubmitInputOptions): Promise<ThreadLease | undefined> {
  if (options.lease === false || !hasThreadLeases(options.graph.checkpointer)) return undefined;
  const threadId = options.config.configurable?.thread_id;
  if (threadId === undefined || threadId === null) return undefined;
  return options.graph.checkpointer.acquireThread({
    threadId: String(threadId),
    ...(options.lease?.waitMs === undefined ? {} : { waitMs: options.lease.waitMs }),
  });
}

async function runTurn(options: SubmitInputOptions): Promise<SubmitInputResult> {
  let view = await options.graph.getState(options.config);
  if (isUnfinished(view)) {
    if (view.tasks.some((task) => (task.interrupts?.length ?? 0) > 0)) {
      return { accepted: false, state: view.values, interrupted: true };
    }
    // A crashed run's saved writes make getState look done (next = []) although the step
    // after them never ran; its input is already in the ledger. Finish it first, or the
    // new input's run would start from the checkpoint before those writes and drop them.
    if (options.resumeUnfinished ?? true) {
      await options.graph.invoke(null, options.config);
      view = await options.graph.getState(options.config);
    }
  }
  const snapshot = view.values as Record<string, unknown>;
  const builderOptions = options.blackboard === undefined ? {} : { blackboard: options.blackboard };
  const sb = new StateBuilder(
    options.session !== undefined && !snapshot.session_id
      ? { ...snapshot, session_id: options.session.sessionId }
      : snapshot,
    builderOptions,
  );
  if (options.session !== undefined && !snapshot.session_id) sb.session.start(options.session);
  if (!sb.messages.acceptInput(options.input)) return { accepted: false, state: snapshot };
  if (options.watch === undefined) {
    return { accepted: true, state: await options.graph.invoke(sb.patch(), options.config) };
  }
  options.watch.onAccepted?.();
  return { accepted: true, state: await watchRun(options.graph, sb.patch(), options.config, options.watch) };
}

/** Runs the graph with `graph.stream`, passing each watched chunk on; returns the final state. */
async function watchRun(
  graph: InvokableGraph,
  input: unknown,
  config: RunnableConfig,
  watch: RunWatch,
): Promise<unknown> {
  // A graph that cannot stream runs as before: nothing to watch but its end.
  if (graph.stream === undefined) return graph.invoke(input, config);
  const modes = new Set<StreamMode>([...watch.modes, 'values']);
  let state: unknown;
  for await (const item of await graph.stream(input, { ...config, streamMode: [...modes] })) {
    const [mode, chunk] = item as [StreamMode, unknown];
    // The last `values` chunk is the final state, what `invoke` returns.
    if (mode === 'values') state = chunk;
    else watch.onChunk(mode as WatchedMode, chunk);
  }
  return state;
}

/** A run is unfinished while its latest checkpoint still has tasks (done or not). */
function isUnfinished(view: GraphStateView): boolean {
  return view.next.length > 0 || view.tasks.length > 0;
}
