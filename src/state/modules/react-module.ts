import { current, type ModuleContext } from './module-context.ts';

/** Snapshot of the ReAct module. */
export interface ReactSnapshot {
  goal: string | null;
  plan: string[];
  reflection: string | null;
  errorRetryCount: number;
}

/** ReAct controller state: `goal`, `plan`, `reflection`, `error_retry_count`. */
export class ReactModule {
  readonly #context: ModuleContext;

  constructor(context: ModuleContext) {
    this.#context = context;
  }

  /** Goal, plan, last reflection and error-retry count (including this patch's writes). */
  snapshot(): ReactSnapshot {
    return {
      goal: current(this.#context, 'goal', null),
      plan: [...current(this.#context, 'plan', [])],
      reflection: current(this.#context, 'reflection', null),
      errorRetryCount: current(this.#context, 'error_retry_count', 0),
    };
  }

  /** Sets the goal. */
  saveGoal(goal: string): void {
    this.#context.buffer.set('goal', goal);
  }

  /** Replaces the plan (one string per step). */
  savePlan(plan: readonly string[]): void {
    this.#context.buffer.set('plan', [...plan]);
  }

  /** Records the latest reflection. */
  saveReflection(reflection: string): void {
    this.#context.buffer.set('reflection', reflection);
  }

  /** Sets the error-retry count back to 0. */
  resetErrorRetry(): void {
    this.#context.buffer.set('error_retry_count', 0);
  }

  /** Adds one to the error-retry count and returns the new count. */
  incErrorRetry(): number {
    const next = current(this.#context, 'error_retry_count', 0) + 1;
    this.#context.buffer.set('error_retry_count', next);
    return next;
  }
}
