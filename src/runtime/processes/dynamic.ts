import type { BaseMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import { Command } from '@langchain/langgraph';
import { type RoutingSnapshot, StateBuilder, type TodoSnapshot } from '../../state/index.ts';
import type { AgentDefinition } from '../agents/define-agent.ts';
import { type AgentNodeOptions, builderOptions, createAgentNode } from '../agents/node-factory.ts';
import { processRule } from '../agents/process-rules.ts';
import { defaultCounter } from './default-counter.ts';
import { createProcessGraph, type ProcessGraph } from './process-graph.ts';
import { nodeOptions, type ProcessOptions } from './process-options.ts';
import { assertUniqueAgents } from './sequential.ts';

/** What a router sees: module snapshots, never raw state. */
export interface RouterView {
  routing: RoutingSnapshot;
  messages: BaseMessage[];
  todo: TodoSnapshot | null;
  /** Agents run since the last user message. */
  hops: number;
  /**
   * The router node's StateBuilder. A router that keeps its own state (the commander's TODO
   * patch, pending requests) writes through its modules/extensions; it lands in the router
   * node's one patch, whatever the decision.
   */
  sb: StateBuilder;
  /** LangGraph's `configurable.thread_id` of this run (the session's thread), if any. */
  threadId: string | undefined;
}

/** A router's decision: the next agent (and optionally its task), or undefined to finish. */
export type RouteDecision = { agentId: string; task?: string } | undefined;

/** Options of {@link createDynamicProcess}. */
export interface DynamicProcessOptions extends ProcessOptions {
  agents: readonly AgentDefinition[];
  /** Picks the next agent (the semantic router plugs in here). */
  router: (view: RouterView) => RouteDecision | Promise<RouteDecision>;
  /** Most agent runs per user message; then the process ends. Default 8, range 1..100. */
  maxHops?: number;
  /** Per-agent node additions: call-time sources, the compact stage, extra writes after a result. */
  agentNode?: (agent: AgentDefinition) => Pick<AgentNodeOptions, 'sources' | 'compact' | 'onResult'>;
}

/**
 * Dynamic process: a router node picks the next agent from the state, the agent runs, and
 * control returns to the router until it finishes (or `maxHops`). The router writes only
 * `routing.activate/assignTask`; each agent node ends with `routing.finishAgent`.
 */
export function createDynamicProcess(options: DynamicProcessOptions): ProcessGraph {
  assertUniqueAgents(options.agents);
  const counter = defaultCounter(options.counter);
  const base = nodeOptions(options, counter);
  const ids = new Set(options.agents.map((agent) => agent.id));
  const maxHops = options.maxHops ?? 8;
  const rule = processRule('dynamic', { enableShareContext: options.enableShareContext ?? true });

  const router = async (state: Record<string, unknown>, config?: RunnableConfig) => {
    const sb = new StateBuilder(state, builderOptions(base));
    const messages = sb.messages.snapshot();
    const hops = hopsSinceUser(sb);
    const decision =
      hops >= maxHops
        ? undefined
        : await options.router({
            routing: sb.routing.snapshot(),
            messages,
            todo: sb.todo.snapshot(),
            hops,
            sb,
            threadId: threadIdOf(config),
          });
    if (decision === undefined || !ids.has(decision.agentId)) {
      if (decision !== undefined) sb.timeline.append([{ kind: 'route-unknown', text: decision.agentId }]);
      return new Command({ update: sb.patch(), goto: '__end__' });
    }
    sb.routing.activate(decision.agentId);
    if (decision.task !== undefined) sb.routing.assignTask(decision.task);
    sb.timeline.append([{ kind: 'route', agentId: decision.agentId, text: lastUserId(sb) }]);
    return new Command({ update: sb.patch(), goto: decision.agentId });
  };

  let graph = createProcessGraph(options.blackboard)
    .addNode('router', router, { ends: [...ids, '__end__'] })
    .addEdge('__start__', 'router');
  for (const agent of options.agents) {
    graph = graph
      .addNode(
        agent.id,
        createAgentNode({
          ...base,
          agent,
          rule,
          query: (sb) => sb.routing.snapshot().assignedTask ?? undefined,
          ...options.agentNode?.(agent),
        }),
      )
      .addEdge(agent.id, 'router');
  }
  return graph;
}

function threadIdOf(config: RunnableConfig | undefined): string | undefined {
  const id = config?.configurable?.thread_id;
  return typeof id === 'string' ? id : undefined;
}

function lastUserId(sb: StateBuilder): string {
  const messages = sb.messages.snapshot();
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    if (messages[index]?.getType() === 'human') return messages[index]?.id ?? '';
  }
  return '';
}

function hopsSinceUser(sb: StateBuilder): number {
  const turn = lastUserId(sb);
  return sb.timeline.snapshot().entries.filter((entry) => entry.kind === 'route' && entry.text === turn)
    .length;
}
