import type { Timeline, TimelineEntry } from '../types.ts';
import { current, type ModuleContext } from './module-context.ts';

/**
 * The run timeline: entries are buffered by `append` and written by `flush`. `timeline` is a
 * delta channel: `flush` writes only this node's entries and the channel appends them, so
 * what every reader sees after the step is the stored timeline followed by this node's
 * entries — the value seed 002's whole write-back (整体替换) would produce — while a
 * checkpoint stores only the new entries.
 */
export class TimelineModule {
  readonly #context: ModuleContext;
  readonly #buffered: TimelineEntry[] = [];

  constructor(context: ModuleContext) {
    this.#context = context;
  }

  /** Stored entries followed by entries buffered in this node. */
  snapshot(): Timeline {
    const stored = current(this.#context, 'timeline', { entries: [] });
    return { entries: [...stored.entries, ...this.#buffered] };
  }

  /** Buffers entries; `atMs` defaults to the injected clock. Nothing is written until `flush`. */
  append(entries: readonly (Omit<TimelineEntry, 'atMs'> & { atMs?: number })[]): void {
    for (const entry of entries) this.#buffered.push({ ...entry, atMs: entry.atMs ?? this.#context.now() });
  }

  /** True when `append` was called since the last `flush`. */
  get dirty(): boolean {
    return this.#buffered.length > 0;
  }

  /** Writes the buffered entries into the patch (appended to the stored timeline). No-op when nothing is buffered. */
  flush(): void {
    if (this.#buffered.length === 0) return;
    this.#context.buffer.appendTimeline(this.#buffered);
    this.#buffered.length = 0;
  }
}
