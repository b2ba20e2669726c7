import { Command } from '@langchain/langgraph';
import { createInheritedSource } from '../../sources/inherited-source.ts';
import type { MemoryView } from '../../sources/memory-store.ts';
import { StateBuilder } from '../../state/index.ts';
import type { AgentDefinition } from '../agents/define-agent.ts';
import { builderOptions, createAgentNode } from '../agents/node-factory.ts';
import { processRule } from '../agents/process-rules.ts';
import { runAgent } from '../agents/run-agent.ts';
import { defaultCounter } from './default-counter.ts';
import { createProcessGraph, type ProcessGraph } from './process-graph.ts';
import { nodeOptions, type ProcessOptions } from './process-options.ts';
import { assertUniqueAgents } from './sequential.ts';

/** Contract of the manager: how to delegate. */
export function managerContract(subAgents: readonly AgentDefinition[]): string {
  const list = subAgents.map((agent) => `- ${agent.id}`).join('\n');
  return `You manage these agents:\n${list}\nTo delegate, reply exactly "DELEGATE <agent id>: <task>". Otherwise answer the user.`;
}

/** Options of {@link createHierarchicalProcess}. */
export interface HierarchicalProcessOptions extends ProcessOptions {
  manager: AgentDefinition;
  subAgents: readonly AgentDefinition[];
  /** Most delegations per user message. Default 4, range 1..50. */
  maxDelegations?: number;
  /**
   * The manager's memory (seed 001's L1/L2 store, `ctxloom/sources`). When given, sub-agents
   * do not get the history: they read the parent's memory through `InheritedSource`
   * (`knowledge__context`) and work on their task alone. Default: sub-agents see the
   * shared Blackboard history.
   */
  parentMemory?: MemoryView;
}

/**
 * Hierarchical process: a manager agent either answers or delegates a task to a sub-agent
 * (`routing.activate/assignTask`); the sub-agent runs on the parent's memory (the same
 * Blackboard history) with the task as its query, then control returns to the manager.
 */
export function createHierarchicalProcess(options: HierarchicalProcessOptions): ProcessGraph {
  assertUniqueAgents([options.manager, ...options.subAgents]);
  const counter = defaultCounter(options.counter);
  const base = nodeOptions(options, counter);
  const share = { enableShareContext: options.enableShareContext ?? true };
  const ids = new Set(options.subAgents.map((agent) => agent.id));
  const maxDelegations = options.maxDelegations ?? 4;
  const inherit =
    options.parentMemory === undefined ? undefined : createInheritedSource({ parent: options.parentMemory });

  const manager = async (state: Record<string, unknown>) => {
    const sb = new StateBuilder(state, builderOptions(base));
    const delegated = sb.timeline
      .snapshot()
      .entries.filter((entry) => entry.kind === 'delegate' && entry.text === lastUserId(sb)).length;
    const result = await runAgent({
      agent: options.manager,
      sb,
      rule: processRule('manager', share),
      counter,
      framework: managerContract(options.subAgents),
      // A delegation line is no answer: the manager's answer reaches the stream whole, as the node's output.
      stream: false,
    });
    const match = /^\s*DELEGATE\s+([\w-]+)\s*:\s*([\s\S]+)$/u.exec(result.text);
    if (match !== null && ids.has(match[1] ?? '') && delegated < maxDelegations) {
      const agentId = match[1] as string;
      sb.routing.activate(agentId);
      sb.routing.assignTask((match[2] ?? '').trim());
      sb.timeline.append([{ kind: 'delegate', agentId, text: lastUserId(sb) }]);
      return new Command({ update: sb.patch(), goto: agentId });
    }
    sb.messages.append(result.messages);
    sb.routing.finishAgent({ status: 'completed' });
    return new Command({ update: sb.patch(), goto: '__end__' });
  };

  let graph = createProcessGraph(options.blackboard)
    .addNode('manager', manager, { ends: [...ids, '__end__'] })
    .addEdge('__start__', 'manager');
  for (const agent of options.subAgents) {
    graph = graph
      .addNode(
        agent.id,
        createAgentNode({
          ...base,
          agent: inherit === undefined ? agent : { ...agent, sources: [...(agent.sources ?? []), inherit] },
          rule:
            inherit === undefined
              ? processRule('sub-agent', share)
              : { ...processRule('sub-agent', share), history: false },
          query: (sb) => sb.routing.snapshot().assignedTask ?? undefined,
        }),
      )
      .addEdge(agent.id, 'manager');
  }
  return graph;
}

function lastUserId(sb: StateBuilder): string {
  const messages = sb.messages.snapshot();
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    if (messages[index]?.getType() === 'human') return messages[index]?.id ?? '';
  }
  return '';
}
