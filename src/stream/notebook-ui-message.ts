import type { UIMessage } from 'ai';
import type { CompileReport } from '../core/index.ts';

/** Name of the data part that carries the compile report (`data-context-report` on the wire). */
export const CONTEXT_REPORT_PART = 'data-context-report' as const;

/** A reference merged into the query, as the chat stream reports it. */
export interface ReportedReference {
  path: string;
  /** 1-based first line. */
  startLine: number;
  /** 1-based last line (inclusive). */
  endLine: number;
  block?: string;
}

/** Payload of the `data-context-report` part: what the model receives for this call. */
export interface ContextReportData {
  report: CompileReport;
  /** Closest-match fallbacks and missing files found while compiling. */
  warnings: string[];
  references: ReportedReference[];
  /** The model that answers (`offline` when none is configured). */
  model: { spec: string; offline: boolean };
  /** Id of the turn's first call in the session's call log (open it while the answer streams). */
  callId?: string;
}

/** Curation state of a message, as the UI shows it. */
export interface MessageCuration {
  state: 'dismissed' | 'excluded';
  by: 'model' | 'user';
  summary?: string;
}

/** The compile of the call that produced an assistant message, as stored with it. */
export interface MessageContextSummary {
  /** Tokens sent (the report's `totalTokens`). */
  totalTokens: number;
  inputBudget: number;
  references: ReportedReference[];
  /** Id of the call in the session's call log (open it with `GET /api/sessions/:id/calls`). */
  callId?: string;
  /** Ids of every call of the turn, one per step of the tool loop (`callId` first). */
  callIds?: string[];
  /** Messages that passed the session's cut into the rolling summary before this call (decision 040). */
  compacted?: number;
}

/** Metadata of a notebook UI message. */
export interface NotebookMessageMetadata {
  /** ISO-8601 time the message was stored. */
  createdAt?: string;
  /** True when the stream ended before the answer finished (client disconnected). */
  partial?: boolean;
  /** Set on an answer whose model call failed: the stored error (`code`, one-line `message`). */
  error?: { code: string; message: string };
  /** Ids of the stored `messages.json` entries this UI message renders (dismiss targets). */
  storedIds?: string[];
  /** Set when the message (or one of its stored entries) is dismissed or excluded. */
  memory?: MessageCuration;
  /** For assistant messages: what the call that produced it was sent. */
  context?: MessageContextSummary;
  /** Set on a chat command (`/compress …`) and its answer: shown with a marker, never sent to the model. */
  command?: 'compress';
}

/** The AI SDK `UIMessage` of the notebook: metadata above plus the context-report data part. */
export type NotebookUIMessage = UIMessage<NotebookMessageMetadata, { 'context-report': ContextReportData }>;
