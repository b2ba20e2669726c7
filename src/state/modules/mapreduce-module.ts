import { CtxloomError } from '../../core/errors.ts';
import type { MapReduceResult, MapReduceTask } from '../types.ts';
import { current, type ModuleContext } from './module-context.ts';

/** Snapshot of the MapReduce module. */
export interface MapReduceSnapshot {
  goal: string | null;
  understanding: string | null;
  tasks: MapReduceTask[];
  task: MapReduceTask | null;
  results: MapReduceResult[];
}

/**
 * MapReduce run state. `mapreduce_results` is append-only; `initPlan` (called by the
 * planner, the node that emits the `Send`s) is the only place it is cleared.
 */
export class MapReduceModule {
  readonly #context: ModuleContext;

  constructor(context: ModuleContext) {
    this.#context = context;
  }

  /** The plan, the current task and the results (including this patch's). */
  snapshot(): MapReduceSnapshot {
    return {
      goal: current(this.#context, 'mapreduce_goal', null),
      understanding: current(this.#context, 'mapreduce_understanding', null),
      tasks: [...current(this.#context, 'mapreduce_tasks', [])],
      task: current(this.#context, 'mapreduce_task', null),
      results: this.#context.buffer.resetsResults
        ? []
        : [...(this.#context.state.mapreduce_results ?? []), ...this.#context.buffer.pendingResults],
    };
  }

  /** Writes a new plan and clears the previous results (`Overwrite([])`). */
  initPlan(options: { goal: string; understanding: string; tasks: readonly MapReduceTask[] }): void {
    const ids = new Set<string>();
    for (const task of options.tasks) {
      if (ids.has(task.id)) {
        throw new CtxloomError({
          code: 'invalid-argument',
          message: `duplicate task id ${task.id}`,
          path: 'tasks',
        });
      }
      ids.add(task.id);
    }
    const { buffer } = this.#context;
    buffer.set('mapreduce_goal', options.goal);
    buffer.set('mapreduce_understanding', options.understanding);
    buffer.set(
      'mapreduce_tasks',
      options.tasks.map((task) => ({ ...task })),
    );
    buffer.set('mapreduce_task', null);
    buffer.resetResults();
  }

  /** Sets the task a worker runs. */
  setCurrentTask(task: MapReduceTask | null): void {
    this.#context.buffer.set('mapreduce_task', task === null ? null : { ...task });
  }

  /**
   * Appends one result. A result for a task that already has one (a re-run after a restore
   * or retry) is ignored; returns whether it was appended.
   */
  appendResult(result: MapReduceResult): boolean {
    const existing = this.snapshot().results;
    if (existing.some((item) => item.taskId === result.taskId)) return false;
    this.#context.buffer.appendResults([{ ...result }]);
    return true;
  }
}
