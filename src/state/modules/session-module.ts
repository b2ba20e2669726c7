import type { ModuleContext } from './module-context.ts';

/** Snapshot of the session module. */
export interface SessionSnapshot {
  namespace: string;
  sessionId: string;
}

/** Session identity (`namespace`, `session_id`): read-only; the session entry writes it once. */
export class SessionModule {
  readonly #context: ModuleContext;

  constructor(context: ModuleContext) {
    this.#context = context;
  }

  /** The session identity. */
  snapshot(): SessionSnapshot {
    return {
      namespace: this.#context.state.namespace ?? '',
      sessionId: this.#context.state.session_id ?? '',
    };
  }

  /** Sets the identity of a new session (the session entry's first patch). */
  start(options: { namespace: string; sessionId: string }): void {
    this.#context.buffer.set('namespace', options.namespace);
    this.#context.buffer.set('session_id', options.sessionId);
  }
}
