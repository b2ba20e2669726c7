import { current, type ModuleContext } from './module-context.ts';

/** Saved deliverables (`deliverable_keys`): a de-duplicated list, written back whole. */
export class DeliverablesModule {
  readonly #context: ModuleContext;

  constructor(context: ModuleContext) {
    this.#context = context;
  }

  /** Keys of the deliverables saved so far, in the order first saved. */
  snapshot(): string[] {
    return [...current(this.#context, 'deliverable_keys', [])];
  }

  /** Records that the deliverable `key` (usually the producing agent's id) was saved. */
  recordSaved(key: string): void {
    const keys = this.snapshot();
    if (keys.includes(key)) return;
    this.#context.buffer.set('deliverable_keys', [...keys, key]);
  }
}
