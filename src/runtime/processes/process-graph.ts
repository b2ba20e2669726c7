import type { RunnableConfig } from '@langchain/core/runnables';
import { type Command, StateGraph } from '@langchain/langgraph';
import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import { Blackboard, type BlackboardDefinition } from '../../state/index.ts';

type NodeResult = Record<string, unknown> | Command;
type NodeFunction = (state: Record<string, unknown>) => NodeResult | Promise<NodeResult>;

/** A compiled process: the LangGraph methods the session layer and tests use. */
export interface CompiledProcess {
  invoke(input: unknown, config?: RunnableConfig): Promise<Record<string, unknown>>;
  getState(
    config: RunnableConfig,
  ): Promise<{ values: unknown; next: string[]; tasks: { interrupts?: readonly unknown[] }[] }>;
  updateState(config: RunnableConfig, values: unknown, asNode?: string): Promise<unknown>;
  getStateHistory(config: RunnableConfig): AsyncIterable<{
    values: unknown;
    next: string[];
    config: { configurable?: Record<string, unknown> };
  }>;
}

/**
 * A process graph under construction: LangGraph's `StateGraph` over the Blackboard with
 * node names known only at run time (agent ids), so its methods take plain strings.
 */
export interface ProcessGraph {
  addNode(name: string, node: NodeFunction, options?: { ends?: string[] }): ProcessGraph;
  addEdge(from: string, to: string): ProcessGraph;
  addConditionalEdges(
    from: string,
    route: (state: Record<string, unknown>) => string,
    ends: string[],
  ): ProcessGraph;
  compile(options?: { checkpointer?: BaseCheckpointSaver }): CompiledProcess;
}

/** Starts a process graph on the given Blackboard (default {@link Blackboard}). */
export function createProcessGraph(blackboard?: Pick<BlackboardDefinition, 'schema'>): ProcessGraph {
  return new StateGraph((blackboard ?? Blackboard).schema) as unknown as ProcessGraph;
}
