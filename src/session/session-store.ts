import type { CompressionState } from '../compression/index.ts';
import {
  type CallRecord as CoreCallRecord,
  CtxloomError,
  type Message,
  type SummaryPeriod,
} from '../core/index.ts';
import { type CurationEvent, curationLogSchema } from '../workspace/index.ts';

/** One curation decision (defined in `ctxloom/workspace`). */
export type { CurationEvent };

/**
 * A history summary and exactly what it covers: the contiguous run of stored, non-system
 * messages from the session's first message through `throughMessageId`. Covered messages are
 * left out of every later compile (reported as `summarized`); nothing outside the run is
 * reported as summarised.
 */
export interface HistorySummary {
  /** The summary text sent in `compression__context`. */
  text: string;
  /** Id of the oldest message the summary covers (the session's first non-system message). */
  fromMessageId: string;
  /** Id of the newest message the summary covers. */
  throughMessageId: string;
  /** How many messages the run holds (dismissed and excluded ones included). */
  coveredCount: number;
  /** Who wrote it, e.g. `extractive (offline)` or `model openai:gpt-4o-mini`. */
  summarizer: string;
  /** ISO-8601 time it was written. */
  createdAt: string;
  /**
   * The rolling summary's periods, oldest first (decision 040); `text` is their rendering.
   * Absent in summaries written before rolling summaries (one period: the whole run).
   */
  periods?: SummaryPeriod[];
}

/**
 * What `/compress` keeps for a session: the history summary and seed 004's structured state
 * (requirement TODO and artifact index). `revision` is the optimistic-concurrency counter.
 */
export interface SessionCompression {
  revision: number;
  summary: HistorySummary | null;
  /** Seed 004's requirement TODO, artifact index and clipping switch; `null` before the first use. */
  structured: CompressionState | null;
  /**
   * Newest message whose user requirements (`requirements`) and tool results (`artifacts`)
   * are in `structured`; `null` before the first `/compress` of that scope.
   */
  processedThrough: { requirements: string | null; artifacts: string | null };
}

/** One logged model call (core's {@link CoreCallRecord}). */
export type CallRecord = CoreCallRecord;

/** Everything durable about one session, as {@link SessionStore.load} returns it. */
export interface SessionState {
  sessionId: string;
  /** The full record, oldest first; never rewritten by curation or compression. */
  messages: Message[];
  /** Curation events in the order they happened. */
  curation: CurationEvent[];
  compression: SessionCompression;
}

/** Options of {@link SessionStore.listCalls}. */
export interface ListCallsOptions {
  /** Most records returned, newest last (1..1000). Default 200. */
  limit?: number;
}

/** How many call records a store keeps per session, at least. */
export const CALL_LOG_CAPACITY = 200;

/** The most call records one `listCalls` returns. */
export const MAX_LISTED_CALLS = 1000;

/**
 * The port behind every session: the one place a session's durable state is read and
 * written, whatever the entry point (HTTP, CLI, MCP, LangGraph node, library). Two adapters
 * ship: workspace files ({@link createFileSessionStore}) and LangGraph checkpoints.
 * `ctxloom/testing`'s `describeSessionStoreConformance` runs the same suite on both.
 *
 * Every write is all-or-nothing and acknowledged only once stored. Mutating a loaded value
 * never changes the stored one: implementations return copies, or frozen messages and call
 * records they share with a cache (the files store shares messages, decision 061; the
 * checkpoint store messages and call records, decision 078's amendments: changing one throws
 * a `TypeError`; copy it to change it). The state object and its arrays, and the arrays
 * `listCalls` returns, are always the caller's own.
 */
export interface SessionStore {
  /** Adapter name for reports and errors, e.g. `files` or `sqlite`. */
  readonly kind: string;
  /** The session's state; an empty one for a session with nothing stored yet. */
  load(sessionId: string): Promise<SessionState>;
  /**
   * Runs `work` (a whole turn) holding the session against other processes' turns: a second
   * process's turn waits, or gets `conflict` when the wait runs out. Optional: without it, the
   * session engine keeps turns apart within its process only.
   */
  holdTurn?<T>(sessionId: string, work: () => Promise<T>): Promise<T>;
  /**
   * Appends messages in order. Throws `conflict` (nothing stored) when an id is already stored
   * or repeated, and `invalid-argument` naming `<index>.id` (nothing stored) for an id a compile
   * reserves for its layer messages (`layer:…`, `isReservedMessageId`); stored ones still load.
   */
  appendMessages(sessionId: string, messages: readonly Message[]): Promise<void>;
  /**
   * Appends curation events. Throws `invalid-argument` when an event has the wrong shape and
   * `not-found` when any event targets a message that is not stored; nothing is stored then.
   */
  appendCuration(sessionId: string, events: readonly CurationEvent[]): Promise<void>;
  /**
   * Replaces the compression state when the stored revision equals `expectedRevision`;
   * returns it with the next revision. Throws `conflict` otherwise.
   */
  saveCompression(
    sessionId: string,
    compression: Omit<SessionCompression, 'revision'>,
    options: { expectedRevision: number },
  ): Promise<SessionCompression>;
  /** Appends a call record; the oldest are removed beyond {@link CALL_LOG_CAPACITY}. */
  appendCall(sessionId: string, call: CallRecord): Promise<void>;
  /** The newest call records, oldest first. */
  listCalls(sessionId: string, options?: ListCallsOptions): Promise<CallRecord[]>;
  /**
   * Removes everything the store keeps of the session — messages, curation, compression,
   * call log — so a new session with the same id starts empty. Idempotent. (The session's
   * folder and files belong to the workspace; deleting them is the caller's.)
   */
  deleteSession(sessionId: string): Promise<void>;
}

/**
 * Refuses a curation batch with an event of the wrong shape before anything is stored
 * (`invalid-argument` naming the event's index and field): a stored one would make every
 * later load of the session fail.
 */
export function checkCurationEvents(events: readonly CurationEvent[]): void {
  const result = curationLogSchema.shape.events.safeParse(events);
  if (result.success) return;
  const issue = result.error.issues[0];
  throw new CtxloomError({
    code: 'invalid-argument',
    message: `invalid curation event: ${issue?.message ?? 'unknown problem'}; nothing was stored`,
    path: (issue?.path ?? []).join('.'),
    cause: result.error,
  });
}
