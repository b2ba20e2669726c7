import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AIMessage } from '@langchain/core/messages';
import { Send, StateGraph } from '@langchain/langgraph';
import { afterAll, describe, expect, it } from 'vitest';
import { Blackboard, type BlackboardState, type MapReduceTask, StateBuilder } from '../../state/index.ts';
import { SqliteSaver } from '../checkpoint/sqlite-saver.ts';
import { submitInput } from '../session/submit-input.ts';

const directory = mkdtempSync(join(tmpdir(), 'ctxloom-mapreduce-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

interface Harness {
  runs: Map<string, number>;
  failOnce: Set<string>;
}

/** planner → Send(worker) per task → reducer, written only through StateBuilder. */
function mapReduceGraph(saver: SqliteSaver, harness: Harness) {
  return new StateGraph(Blackboard.schema)
    .addNode(
      'planner',
      (state: BlackboardState) => {
        const sb = new StateBuilder(state);
        const question = String(sb.messages.snapshot().at(-1)?.content ?? '');
        const tasks: MapReduceTask[] = ['t1', 't2', 't3'].map((id) => ({
          id,
          description: `${question} / ${id}`,
        }));
        sb.mapreduce.initPlan({ goal: question, understanding: 'split in three', tasks });
        return sb.command({ goto: tasks.map((task) => new Send('worker', { mapreduce_task: task })) });
      },
      { ends: ['worker'] },
    )
    .addNode('worker', (state: BlackboardState) => {
      const sb = new StateBuilder(state);
      const task = sb.mapreduce.snapshot().task;
      if (task === null) throw new Error('worker without a task');
      const key = task.description;
      harness.runs.set(key, (harness.runs.get(key) ?? 0) + 1);
      if (harness.failOnce.delete(task.id)) throw new Error(`worker ${task.id} crashed`);
      sb.mapreduce.appendResult({ taskId: task.id, status: 'ok', output: `done ${task.description}` });
      return sb.patch();
    })
    .addNode('reducer', (state: BlackboardState) => {
      const sb = new StateBuilder(state);
      const results = sb.mapreduce.snapshot().results;
      sb.messages.append([new AIMessage({ content: results.map((result) => result.output).join('\n') })]);
      sb.deliverables.recordSaved('report');
      sb.routing.finishAgent({ status: 'completed' });
      return sb.patch();
    })
    .addEdge('__start__', 'planner')
    .addEdge('worker', 'reducer')
    .addEdge('reducer', '__end__')
    .compile({ checkpointer: saver });
}

const session = { namespace: 'tests', sessionId: 'mr' };

describe('a MapReduce run on the Blackboard with the SQLite saver', () => {
  it('resumes after a failed worker without duplicating results or re-running finished workers', async () => {
    const saver = new SqliteSaver({ path: join(directory, 'failed-worker.db') });
    const harness: Harness = { runs: new Map(), failOnce: new Set(['t2']) };
    const graph = mapReduceGraph(saver, harness);
    const config = { configurable: { thread_id: 'mr-1' } };
    await expect(
      submitInput({ graph, config, input: { inputId: 'q1', content: 'survey' }, session }),
    ).rejects.toThrow(/worker t2 crashed/);
    await graph.invoke(null, config);
    const state = (await graph.getState(config)).values as BlackboardState;
    expect(state.mapreduce_results.map((result) => result.taskId).sort()).toEqual(['t1', 't2', 't3']);
    expect(Object.fromEntries(harness.runs)).toEqual({
      'survey / t1': 1,
      'survey / t2': 2,
      'survey / t3': 1,
    });
    expect(state.deliverable_keys).toEqual(['report']);
    await saver.close();
  });

  it('re-running a worker or the reducer from a checkpoint adds no result and no deliverable twice', async () => {
    const path = join(directory, 'rerun.db');
    const harness: Harness = { runs: new Map(), failOnce: new Set() };
    const config = { configurable: { thread_id: 'mr-2' } };
    const saver = new SqliteSaver({ path });
    const graph = mapReduceGraph(saver, harness);
    await submitInput({ graph, config, input: { inputId: 'q1', content: 'survey' }, session });

    // A worker's write delivered again (e.g. a retried task) is absorbed by the reducer.
    await graph.updateState(
      config,
      { mapreduce_results: [{ taskId: 't1', status: 'ok', output: 'again' }] },
      'worker',
    );
    // The reducer node run again from its input checkpoint, in a restarted process.
    await saver.close();
    const restarted = new SqliteSaver({ path });
    const again = mapReduceGraph(restarted, harness);
    let beforeReducer: string | undefined;
    for await (const snapshot of again.getStateHistory(config)) {
      if (snapshot.next.includes('reducer')) {
        beforeReducer = snapshot.config.configurable?.checkpoint_id as string;
        break;
      }
    }
    expect(beforeReducer).toBeDefined();
    await again.invoke(null, { configurable: { thread_id: 'mr-2', checkpoint_id: beforeReducer } });
    const state = (await again.getState(config)).values as BlackboardState;
    expect(state.mapreduce_results.map((result) => result.taskId).sort()).toEqual(['t1', 't2', 't3']);
    expect(state.mapreduce_results.find((result) => result.taskId === 't1')?.output).toBe('done survey / t1');
    expect(state.deliverable_keys).toEqual(['report']);
    await restarted.close();
  });

  it('starts a second plan from empty results instead of accumulating the first', async () => {
    const saver = new SqliteSaver({ path: join(directory, 'second-plan.db') });
    const harness: Harness = { runs: new Map(), failOnce: new Set() };
    const graph = mapReduceGraph(saver, harness);
    const config = { configurable: { thread_id: 'mr-3' } };
    await submitInput({ graph, config, input: { inputId: 'q1', content: 'first' }, session });
    await submitInput({ graph, config, input: { inputId: 'q2', content: 'second' }, session });
    const state = (await graph.getState(config)).values as BlackboardState;
    expect(state.mapreduce_results.map((result) => result.output).sort()).toEqual([
      'done second / t1',
      'done second / t2',
      'done second / t3',
    ]);
    expect(state.deliverable_keys).toEqual(['report']);
    await saver.close();
  });
});
