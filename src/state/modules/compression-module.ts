import { current, type ModuleContext } from './module-context.ts';

/**
 * The persisted history summary (`compression__context`). A summary lives only here,
 * never in `messages`, so a restore neither loses it nor re-adds it as a message.
 */
export class CompressionModule {
  readonly #context: ModuleContext;

  constructor(context: ModuleContext) {
    this.#context = context;
  }

  /** The persisted summary (empty string when none). */
  snapshot(): string {
    return current(this.#context, 'compression__context', '');
  }

  /** Persists a history summary (replaces the previous one). */
  persistCompression(summary: string): void {
    this.#context.buffer.set('compression__context', summary);
  }
}
