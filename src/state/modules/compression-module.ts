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

  /** Id of the newest message the summary covers (`null`: no summary, or one without coverage). */
  coverage(): string | null {
    return current(this.#context, 'compression_through', null);
  }

  /**
   * Persists a history summary (replaces the previous one) and the newest message it covers,
   * so later compiles skip the covered messages instead of summarising them again.
   */
  persistCompression(summary: string, throughMessageId?: string): void {
    this.#context.buffer.set('compression__context', summary);
    this.#context.buffer.set('compression_through', throughMessageId ?? null);
  }
}
