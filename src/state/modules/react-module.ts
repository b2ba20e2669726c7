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

  snapshot(): ReactSnapshot {
    return {
      goal: current(this.#context, 'goal', null),
      plan: [...current(this.#context, 'plan', [])],
      reflection: current(this.#context, 'reflection', null),
      errorRetryCount: current(this.#context, 'error_retry_count', 0),
    };
  }

  saveGoal(goal: string): void {
    this.#context.buffer.set('goal', goal);
  }

  savePlan(plan: readonly string[]): void {
    this.#context.buffer.set('plan', [...plan]);
  }

  saveReflection(reflection: string): void {
    this.#context.buffer.set('reflection', reflection);
  }

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
