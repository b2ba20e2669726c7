import { z } from 'zod';

/** Version of the `memory.json` audit log. */
export const MEMORY_LOG_VERSION = 1;

const memoryEventSchema = z.strictObject({
  /** Unique event id. */
  id: z.string().min(1),
  /** `dismiss` — replace by a placeholder with a summary; `exclude` — a user hides it; `restore` — undo both. */
  type: z.enum(['dismiss', 'exclude', 'restore']),
  targetMessageId: z.string().min(1),
  /** Why / what it contained; shown in the placeholder. */
  summary: z.string().max(2000).optional(),
  by: z.enum(['model', 'user']),
  /** ISO-8601 time of the event. */
  at: z.string(),
  /** The `dismiss_memory` tool call that produced it, when the model did. */
  toolCallId: z.string().optional(),
});

/** One curation decision, as stored (append-only) in a session's `memory.json`. */
export type MemoryEvent = z.infer<typeof memoryEventSchema>;

/** The `memory.json` file: every curation event in the order it happened. */
export const memoryLogSchema = z.strictObject({
  version: z.literal(MEMORY_LOG_VERSION),
  events: z.array(memoryEventSchema),
});

/** The parsed `memory.json`. */
export type MemoryLog = z.infer<typeof memoryLogSchema>;

/** The effective curation of one message after folding all events. */
export interface MemoryStatus {
  state: 'dismissed' | 'excluded';
  summary?: string;
  by: 'model' | 'user';
  /** The event that decided it (for the audit trail). */
  eventId: string;
}

/** Folds events in order: a later `restore` undoes an earlier `dismiss`/`exclude`. Pure. */
export function foldMemoryEvents(events: readonly MemoryEvent[]): Map<string, MemoryStatus> {
  const statuses = new Map<string, MemoryStatus>();
  for (const event of events) {
    if (event.type === 'restore') {
      statuses.delete(event.targetMessageId);
      continue;
    }
    const status: MemoryStatus = {
      state: event.type === 'dismiss' ? 'dismissed' : 'excluded',
      by: event.by,
      eventId: event.id,
    };
    if (event.summary !== undefined) status.summary = event.summary;
    statuses.set(event.targetMessageId, status);
  }
  return statuses;
}
