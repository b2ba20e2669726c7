/**
 * Response bodies of the notebook's HTTP API. The routes check what they send against these
 * types (`satisfies`) and the web UI (`web/src/api.ts`) imports them, so the two cannot drift.
 */
import type { CompileReport, Message, ReportDiff } from '../core/index.ts';
import type { CallRecord, CompressOutcome, HistorySummary } from '../session/index.ts';
import type { NotebookUIMessage, ReportedReference } from '../stream/index.ts';
import type { BadReference, Block, ContextConfig, ReservedName, SessionRecord } from '../workspace/index.ts';

export type { BadReference, SessionRecord };
/** A block of a parsed file (heading tree or JSON keys). */
export type BlockNode = Block;

/** The model the server answers with. */
export interface ModelInfo {
  /** `CTXLOOM_MODEL`, e.g. `offline` or `openai:gpt-4o-mini`. */
  spec: string;
  offline: boolean;
  /** How to configure a real model (with the offline model). */
  hint?: string;
}

/** `GET /api/sessions`. */
export interface SessionListResponse {
  sessions: SessionRecord[];
  model: ModelInfo;
}

/** `GET /api/sessions/:id`. */
export interface SessionResponse {
  session: SessionRecord;
  messages: NotebookUIMessage[];
}

/** One entry of `GET /api/sessions/:id/files`. */
export interface FileEntry {
  path: string;
  kind: 'file' | 'directory';
  /** Bytes; 0 for folders. */
  size: number;
  /** A workspace global file (`profile.md`, …) read through the session. */
  global: boolean;
  /**
   * The name ctxloom keeps this entry under (`messages.json`, `memory.json`,
   * `compression.json`, `context-config.json`, `calls` for the call log folder and every file
   * in it): never renamed or deleted through the file routes; only `messages.json` and
   * `context-config.json` are written (validated). Absent on the user's own files.
   */
  reserved?: ReservedName;
}

/** `GET /api/sessions/:id/files`. */
export interface FileListResponse {
  files: FileEntry[];
}

/** `PUT`/`PATCH /api/sessions/:id/files/*`: the file written or moved. */
export interface FileWriteResponse {
  path: string;
  etag: string;
  /** Bytes. */
  size: number;
}

/** `GET /api/sessions/:id/search?q=`. */
export interface SearchResponse {
  query: string;
  /** 1-based line numbers; `text` is the line (or a snippet of a long one). */
  hits: { path: string; line: number; text: string }[];
  /** Matching lines in all, hits included. */
  total: number;
  /** More lines matched than hits returned. */
  truncated: boolean;
  /** Files left out: binary, too large or not UTF-8. */
  skipped: number;
}

/** `GET /api/profile/blocks`. */
export interface BlocksResponse {
  file: string;
  blocks: BlockNode[];
  etag: string;
}

/** `GET /api/sessions/:id/context-config`. */
export interface ContextConfigResponse {
  /** With defaults applied. */
  config: ContextConfig;
  /** As written. */
  raw: unknown;
  etag: string;
}

/** `GET /api/sessions/:id/context-preview`. */
export interface PreviewResponse {
  report: CompileReport;
  warnings: string[];
  references: ReportedReference[];
  /** Text of each context layer by name. */
  contexts: Record<string, string>;
  /** What the model receives, in order. */
  messages: Message[];
  model: ModelInfo;
  /** The stored history summary and the run of messages it covers (`null`: none). */
  summary: HistorySummary | null;
}

/** `POST /api/sessions/:id/compress`. */
export type CompressResponse = CompressOutcome;

/** `data` of a `change` event of `GET /api/sessions/:id/events`. */
export interface ChangeEvent {
  /** Changed paths relative to the session folder; global files by name. */
  paths: string[];
}

/** `GET /api/sessions/:id/calls`: the newest logged calls, oldest first. */
export interface CallListResponse {
  calls: CallRecord[];
}

/** `GET /api/sessions/:id/calls/:callId`: one logged call and every logged call of its turn. */
export interface CallResponse {
  call: CallRecord;
  /** The turn's calls (same `turnId`) still in the log, by step; `call` is one of them. */
  turn: CallRecord[];
}

/** A call named in a {@link CallDiffResponse}, without its report. */
export type CallHeader = Omit<CallRecord, 'report' | 'messageFingerprints'>;

/**
 * `GET /api/sessions/:id/calls/:callId/diff`: what changed from the call before it in the
 * log to this one (core's `diffReports`).
 */
export interface CallDiffResponse {
  call: CallHeader;
  /** The call before it in the log; `null` when none is kept (the session's first call, or older ones evicted). */
  previous: CallHeader | null;
  /** `null` exactly when `previous` is. */
  diff: ReportDiff | null;
  /** Tokens per layer in both calls: this call's layers in order, then those only the previous one had; empty without a previous call. */
  layers: { layer: string; previousTokens: number; currentTokens: number }[];
  /** Shortest prefix, in tokens, that the cache split counts as cacheable (providers cache nothing shorter). */
  minCacheTokens: number;
}
