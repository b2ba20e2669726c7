import { z } from 'zod';

/** Version of the `memory.json` audit log. */
export const CURATION_LOG_VERSION = 1;

const curationEventSchema = z.strictObject({
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

/**
 * One curation decision about a stored message: `dismiss` (a placeholder with a summary
 * replaces it), `exclude` (the user hides it) or `restore` (undo both). Stored append-only;
 * `messages` never change. The files adapter keeps them in `memory.json` (seed 003's name).
 */
export type CurationEvent = z.infer<typeof curationEventSchema>;

/** The `memory.json` file: every curation event in the order it happened. */
export const curationLogSchema = z.strictObject({
  version: z.literal(CURATION_LOG_VERSION),
  events: z.array(curationEventSchema),
});

/** The parsed `memory.json`. */
export type CurationLog = z.infer<typeof curationLogSchema>;

/** The effective curation of one message after folding all events. */
export interface CurationStatus {
  state: 'dismissed' | 'excluded';
  summary?: string;
  by: 'model' | 'user';
  /** The event that decided it (for the audit trail). */
  eventId: string;
}

/** Folds events in order: a later `restore` undoes an earlier `dismiss`/`exclude`. Pure. */
export function foldCurationEvents(events: readonly CurationEvent[]): Map<string, CurationStatus> {
  const statuses = new Map<string, CurationStatus>();
  for (const event of events) {
    if (event.type === 'restore') {
      statuses.delete(event.targetMessageId);
      continue;
    }
    const status: CurationStatus = {
      state: event.type === 'dismiss' ? 'dismissed' : 'excluded',
      by: event.by,
      eventId: event.id,
    };
    if (event.summary !== undefined) status.summary = event.summary;
    statuses.set(event.targetMessageId, status);
  }
  return statuses;
}
