/** The values of a thread at one checkpoint. */
interface Entry {
  checkpointId: string;
  values: Readonly<Record<string, unknown>>;
}

/** How the session store folds its own patch into cached values, per written channel. */
export type PatchReducers = Readonly<Record<string, (current: unknown, write: unknown) => unknown>>;

/**
 * The values of each thread's head checkpoint, as the session store last read or wrote them
 * (least recently used first out). Reading a thread replays its delta channels through all
 * ancestors; a hit costs one `getTuple`. An entry is used only while the head is still the
 * checkpoint it was taken at, so a write by another process or graph is a miss, never stale.
 */
export class HeadCache {
  readonly #entries = new Map<string, Entry>();
  readonly #limit: number;
  readonly #reducers: PatchReducers;

  constructor(options: { limit: number; reducers: PatchReducers }) {
    this.#limit = Math.max(1, options.limit);
    this.#reducers = options.reducers;
  }

  /** The cached values of `threadId` at `checkpointId`, if that is what is cached. */
  get(threadId: string, checkpointId: string): Readonly<Record<string, unknown>> | undefined {
    const entry = this.#entries.get(threadId);
    if (entry === undefined || entry.checkpointId !== checkpointId) return undefined;
    this.#entries.delete(threadId);
    this.#entries.set(threadId, entry);
    return entry.values;
  }

  set(threadId: string, checkpointId: string, values: Readonly<Record<string, unknown>>): void {
    this.#entries.delete(threadId);
    this.#entries.set(threadId, { checkpointId, values });
    if (this.#entries.size > this.#limit) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
  }

  /**
   * Records the values after the store wrote `patch` on top of `base` as checkpoint
   * `checkpointId`; a patch naming a channel without a reducer here drops the entry instead.
   */
  advance(
    threadId: string,
    base: Readonly<Record<string, unknown>> | undefined,
    patch: Readonly<Record<string, unknown>>,
    checkpointId: string | undefined,
  ): void {
    const known = Object.keys(patch).every((key) => key in this.#reducers);
    if (base === undefined || checkpointId === undefined || !known) {
      this.#entries.delete(threadId);
      return;
    }
    const next: Record<string, unknown> = { ...base };
    for (const [key, write] of Object.entries(patch)) {
      next[key] = (this.#reducers[key] as (current: unknown, write: unknown) => unknown)(base[key], write);
    }
    this.set(threadId, checkpointId, next);
  }
}
