import { Command, Send } from '@langchain/langgraph';
import { Output } from 'ai';
import { z } from 'zod';
import { type MapReduceTask, StateBuilder } from '../../state/index.ts';
import type { AgentDefinition } from '../agents/define-agent.ts';
import { builderOptions, createAgentNode } from '../agents/node-factory.ts';
import { processRule } from '../agents/process-rules.ts';
import { runAgent } from '../agents/run-agent.ts';
import { defaultCounter } from './default-counter.ts';
import { createProcessGraph, type ProcessGraph } from './process-graph.ts';
import { nodeOptions, type ProcessOptions } from './process-options.ts';

/** Output contract the planner is given in its `framework__context`. */
export const PLANNER_CONTRACT =
  'Split the request into independent tasks. Reply with JSON only: {"understanding": string, "tasks": [{"id": string, "description": string}]}.';

const plan = z.object({
  understanding: z.string(),
  tasks: z.array(z.object({ id: z.string().min(1), description: z.string().min(1) })).min(1),
});

/** Options of {@link createMapReduceProcess}. */
export interface MapReduceProcessOptions extends ProcessOptions {
  planner: AgentDefinition;
  worker: AgentDefinition;
  reducer: AgentDefinition;
  /** Workers also get `knowledge__context` (seed 000: "按需"). Default false. */
  workerKnowledge?: boolean;
  /** Most tasks a plan may have; more is a validation failure. Default 16, range 1..256. */
  maxTasks?: number;
}

/**
 * MapReduce process: planner → one `Send` per task to the worker → reducer. Process rules
 * (seed 000): the planner and reducer see no history; workers see no history and only
 * `framework__context` (+ `knowledge__context` when asked). The planner is the only node
 * that clears `mapreduce_results` (`initPlan` → `Overwrite([])`, in the step that emits the
 * Sends); workers only append, one result per task id, so a re-run never duplicates.
 */
export function createMapReduceProcess(options: MapReduceProcessOptions): ProcessGraph {
  const counter = defaultCounter(options.counter);
  const base = nodeOptions(options, counter);
  const share = { enableShareContext: options.enableShareContext ?? true };
  const maxTasks = options.maxTasks ?? 16;

  const planner = async (state: Record<string, unknown>) => {
    const sb = new StateBuilder(state, builderOptions(base));
    let tasks: MapReduceTask[] = [];
    try {
      const result = await runAgent({
        agent: options.planner,
        sb,
        rule: processRule('mapreduce-planner', share),
        counter,
        framework: PLANNER_CONTRACT,
        // The same structured output as the router: the SDK parses and validates the plan.
        output: Output.object({ schema: plan, name: 'mapreduce_plan' }),
        // A plan and a worker's result are state, not conversation messages: not streamed.
        stream: false,
      });
      const parsed = plan.safeParse(result.output);
      if (!parsed.success || parsed.data.tasks.length > maxTasks)
        throw new Error(`planner output is not a valid plan`);
      tasks = parsed.data.tasks;
      const goal = String(sb.messages.snapshot().at(-1)?.content ?? '');
      sb.mapreduce.initPlan({ goal, understanding: parsed.data.understanding, tasks });
      sb.timeline.append([
        { kind: 'mapreduce-plan', agentId: options.planner.id, text: `${tasks.length} tasks` },
      ]);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      sb.routing.finishAgent({ status: 'failed', failureKind: 'validation', error: message });
      return new Command({ update: sb.patch(), goto: '__end__' });
    }
    return new Command({
      update: sb.patch(),
      goto: tasks.map((task) => new Send('worker', { mapreduce_task: task })),
    });
  };

  // Workers run in parallel in one step: they write only mapreduce_results (a reducer
  // channel); a plain field written by two workers in one step would be a LangGraph error.
  const worker = async (state: Record<string, unknown>) => {
    const sb = new StateBuilder(state, builderOptions(base));
    const task = sb.mapreduce.snapshot().task;
    if (task === null) return {};
    try {
      const result = await runAgent({
        agent: options.worker,
        sb,
        rule: processRule('mapreduce-worker', { workerKnowledge: options.workerKnowledge ?? false }),
        counter,
        query: task.description,
        stream: false,
      });
      sb.mapreduce.appendResult({
        taskId: task.id,
        agentId: options.worker.id,
        status: 'ok',
        output: result.text,
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      sb.mapreduce.appendResult({
        taskId: task.id,
        agentId: options.worker.id,
        status: 'failed',
        output: '',
        error: message,
      });
    }
    return sb.patch();
  };

  const reducer = createAgentNode({
    ...base,
    agent: options.reducer,
    rule: processRule('mapreduce-reducer', share),
    query: (sb) => {
      const { goal, results } = sb.mapreduce.snapshot();
      const lines = results.map((result) =>
        result.status === 'ok'
          ? `- ${result.taskId}: ${result.output}`
          : `- ${result.taskId}: FAILED (${result.error ?? ''})`,
      );
      return `Goal: ${goal ?? ''}\nResults:\n${lines.join('\n')}`;
    },
  });

  return createProcessGraph(options.blackboard)
    .addNode('planner', planner, { ends: ['worker', '__end__'] })
    .addNode('worker', worker)
    .addNode('reducer', reducer)
    .addEdge('__start__', 'planner')
    .addEdge('worker', 'reducer')
    .addEdge('reducer', '__end__');
}
