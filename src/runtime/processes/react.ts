import { Command } from '@langchain/langgraph';
import { StateBuilder } from '../../state/index.ts';
import type { AgentDefinition } from '../agents/define-agent.ts';
import { builderOptions, createAgentNode } from '../agents/node-factory.ts';
import { processRule } from '../agents/process-rules.ts';
import { runAgent } from '../agents/run-agent.ts';
import { defaultCounter } from './default-counter.ts';
import { createProcessGraph, type ProcessGraph } from './process-graph.ts';
import { nodeOptions, type ProcessOptions } from './process-options.ts';

/** Contract of the planning call. */
export const REACT_PLAN_CONTRACT = 'Write the plan to reach the goal: one step per line, no commentary.';
/** Contract of the reflection call; a reply starting with DONE ends the loop. */
export const REACT_REFLECT_CONTRACT =
  'Check the last result against the goal and plan. Reply DONE if the goal is met; otherwise say what to do next.';

/** Options of {@link createReactProcess}. */
export interface ReactProcessOptions extends ProcessOptions {
  agent: AgentDefinition;
  /** Act → reflect rounds before the process stops. Default 4, range 1..50. */
  maxIterations?: number;
  /** Failed act calls retried before the process gives up. Default 2, range 0..20. */
  maxErrorRetries?: number;
}

/**
 * ReAct process: plan (goal + plan) → act (the agent with its tools) → reflect, looping
 * until the reflection says DONE or `maxIterations`; a failed act is retried within the
 * error-retry budget (`react.incErrorRetry`). Goal, plan, reflection and the retry count
 * live in the Blackboard's react fields, so a resumed run continues where it stopped.
 */
export function createReactProcess(options: ReactProcessOptions): ProcessGraph {
  const counter = defaultCounter(options.counter);
  const base = nodeOptions(options, counter);
  const rule = processRule('react', { enableShareContext: options.enableShareContext ?? true });
  const maxIterations = options.maxIterations ?? 4;
  const maxErrorRetries = options.maxErrorRetries ?? 2;

  const planNode = async (state: Record<string, unknown>) => {
    const sb = new StateBuilder(state, builderOptions(base));
    const goal = String(sb.messages.snapshot().at(-1)?.content ?? '');
    const result = await runAgent({
      agent: options.agent,
      sb,
      rule,
      counter,
      framework: REACT_PLAN_CONTRACT,
      // The plan is kept in the react fields, not said in the conversation.
      stream: false,
    });
    const steps = result.text
      .split('\n')
      .map((line) => line.replace(/^\s*(?:[-*]|\d+[.)])\s*/u, '').trim())
      .filter((line) => line.length > 0);
    sb.react.saveGoal(goal);
    sb.react.savePlan(steps);
    sb.react.resetErrorRetry();
    sb.timeline.append([{ kind: 'react-goal', agentId: options.agent.id, text: goal.slice(0, 200) }]);
    return sb.patch();
  };

  const actNode = createAgentNode({
    ...base,
    agent: options.agent,
    rule,
    query: (sb) => {
      const { goal, plan, reflection } = sb.react.snapshot();
      const next = reflection === null ? '' : `\nLast reflection: ${reflection}`;
      return `Goal: ${goal ?? ''}\nPlan:\n${plan.map((step) => `- ${step}`).join('\n')}${next}`;
    },
  });

  const reflectNode = async (state: Record<string, unknown>) => {
    const sb = new StateBuilder(state, builderOptions(base));
    if (sb.routing.snapshot().lastAgentStatus === 'failed') {
      const retries = sb.react.incErrorRetry();
      if (retries > maxErrorRetries) {
        sb.timeline.append([
          { kind: 'react-gave-up', agentId: options.agent.id, text: `${retries - 1} retries` },
        ]);
        return new Command({ update: sb.patch(), goto: '__end__' });
      }
      return new Command({ update: sb.patch(), goto: 'react_act' });
    }
    const iterations = iterationsSinceGoal(sb) + 1;
    const result = await runAgent({
      agent: options.agent,
      sb,
      rule,
      counter,
      framework: REACT_REFLECT_CONTRACT,
      stream: false,
    });
    sb.react.saveReflection(result.text);
    sb.timeline.append([{ kind: 'react-iteration', agentId: options.agent.id, text: String(iterations) }]);
    const done = /^\s*DONE\b/u.test(result.text) || iterations >= maxIterations;
    return new Command({ update: sb.patch(), goto: done ? '__end__' : 'react_act' });
  };

  return createProcessGraph(options.blackboard)
    .addNode('react_plan', planNode)
    .addNode('react_act', actNode)
    .addNode('react_reflect', reflectNode, { ends: ['react_act', '__end__'] })
    .addEdge('__start__', 'react_plan')
    .addEdge('react_plan', 'react_act')
    .addEdge('react_act', 'react_reflect');
}

function iterationsSinceGoal(sb: StateBuilder): number {
  const entries = sb.timeline.snapshot().entries;
  let count = 0;
  for (let index = entries.length - 1; index >= 0; index -= 1) {
    const kind = entries[index]?.kind;
    if (kind === 'react-goal') break;
    if (kind === 'react-iteration') count += 1;
  }
  return count;
}
