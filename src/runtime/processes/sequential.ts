import { CtxloomError } from '../../core/errors.ts';
import type { AgentDefinition } from '../agents/define-agent.ts';
import { createAgentNode } from '../agents/node-factory.ts';
import { processRule } from '../agents/process-rules.ts';
import { defaultCounter } from './default-counter.ts';
import { createProcessGraph, type ProcessGraph } from './process-graph.ts';
import { nodeOptions, type ProcessOptions } from './process-options.ts';

/** Options of {@link createSequentialProcess}. */
export interface SequentialProcessOptions extends ProcessOptions {
  /** Agents in the order they run; each sees the history written by the ones before. */
  agents: readonly AgentDefinition[];
}

/** Sequential process: START → agent 1 → agent 2 → … → END. Compile it with a checkpointer. */
export function createSequentialProcess(options: SequentialProcessOptions): ProcessGraph {
  assertUniqueAgents(options.agents);
  const counter = defaultCounter(options.counter);
  const rule = processRule('agent', { enableShareContext: options.enableShareContext ?? true });
  let graph = createProcessGraph(options.blackboard);
  let previous = '__start__';
  for (const agent of options.agents) {
    graph = graph
      .addNode(agent.id, createAgentNode({ ...nodeOptions(options, counter), agent, rule }))
      .addEdge(previous, agent.id);
    previous = agent.id;
  }
  return graph.addEdge(previous, '__end__');
}

/** Throws when agent ids repeat or the list is empty. */
export function assertUniqueAgents(agents: readonly AgentDefinition[]): void {
  if (agents.length === 0) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: 'a process needs at least one agent',
      path: 'agents',
    });
  }
  const seen = new Set<string>();
  for (const agent of agents) {
    if (seen.has(agent.id)) {
      throw new CtxloomError({
        code: 'invalid-argument',
        message: `agent id ${agent.id} repeats`,
        path: 'agents',
      });
    }
    seen.add(agent.id);
  }
}
