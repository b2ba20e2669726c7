import type { TodoSnapshot } from '../types.ts';
import { current, type ModuleContext } from './module-context.ts';

/** The structured TODO snapshot (`todo`), replaced as a whole. */
export class TodoModule {
  readonly #context: ModuleContext;

  constructor(context: ModuleContext) {
    this.#context = context;
  }

  /** The TODO snapshot, or null when there is none. */
  snapshot(): TodoSnapshot | null {
    return current(this.#context, 'todo', null);
  }

  /** Replaces the whole TODO snapshot. */
  replace(todo: TodoSnapshot): void {
    this.#context.buffer.set('todo', { items: todo.items.map((item) => ({ ...item })) });
  }

  /** Removes the TODO snapshot. */
  clear(): void {
    this.#context.buffer.set('todo', null);
  }
}
