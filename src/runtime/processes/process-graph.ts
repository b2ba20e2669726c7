import type { RunnableConfig } from '@langchain/core/runnables';
import { type Command, StateGraph } from '@langchain/langgraph';
import { Blackboard, type BlackboardDefinition } from '../../state/index.ts';
import { guardNode } from './node-guard.ts';

type NodeResult = Record<string, unknown> | Command;
type NodeFunction = (
  state: Record<string, unknown>,
  config?: RunnableConfig,
) => NodeResult | Promise<NodeResult>;

function blackboardGraph() {
  return new StateGraph(Blackboard.schema);
}

/** LangGraph's `StateGraph` over the Blackboard. */
type BlackboardStateGraph = ReturnType<typeof blackboardGraph>;

/**
 * A compiled process: LangGraph's own `CompiledStateGraph` over the Blackboard, with its whole
 * typed API — `invoke` (typed state), `stream`/`streamEvents`, `getState`, `getStateHistory`,
 * `updateState`, `interruptBefore`/`interruptAfter`, `store`, `name`, `checkpointer`,
 * `getGraph()`. Node names are agent ids, known only at run time.
 */
export type CompiledProcess = ReturnType<BlackboardStateGraph['compile']>;

/** Options of {@link ProcessGraph.compile}: LangGraph's own (`checkpointer`, `store`, `interruptBefore`, `interruptAfter`, `name`, …). */
export type ProcessCompileOptions = NonNullable<Parameters<BlackboardStateGraph['compile']>[0]>;

/**
 * A process graph under construction: LangGraph's `StateGraph` over the Blackboard with node
 * names known only at run time (agent ids), so its methods take plain strings. Every node
 * added is guarded ({@link guardNode}): its returned update is validated against the
 * Blackboard (unknown keys, `Overwrite` of a delta channel) and its input state may not be
 * changed in place (frozen outside production).
 */
export interface ProcessGraph {
  addNode(name: string, node: NodeFunction, options?: { ends?: string[] }): ProcessGraph;
  addEdge(from: string, to: string): ProcessGraph;
  addConditionalEdges(
    from: string,
    route: (state: Record<string, unknown>) => string,
    ends: string[],
  ): ProcessGraph;
  compile(options?: ProcessCompileOptions): CompiledProcess;
}

/** Starts a process graph on the given Blackboard (default {@link Blackboard}). */
export function createProcessGraph(blackboard?: Pick<BlackboardDefinition, 'schema' | 'keys'>): ProcessGraph {
  const definition = blackboard ?? Blackboard;
  const graph = new StateGraph(definition.schema) as unknown as {
    addNode(name: string, node: NodeFunction, options?: { ends?: string[] }): unknown;
    addEdge(from: string, to: string): unknown;
    addConditionalEdges(
      from: string,
      route: (state: Record<string, unknown>) => string,
      ends: string[],
    ): unknown;
    compile(options?: ProcessCompileOptions): CompiledProcess;
  };
  const builder: ProcessGraph = {
    addNode(name, node, options) {
      graph.addNode(name, guardNode({ name, node, keys: definition.keys }), options);
      return builder;
    },
    addEdge(from, to) {
      graph.addEdge(from, to);
      return builder;
    },
    addConditionalEdges(from, route, ends) {
      graph.addConditionalEdges(from, route, ends);
      return builder;
    },
    compile: (options) => graph.compile(options),
  };
  return builder;
}
