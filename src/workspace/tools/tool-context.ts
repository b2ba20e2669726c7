import type { CurationEvent } from '../curation/curation-event.ts';
import type { Sandbox } from '../sandbox/create-sandbox.ts';
import type { Workspace } from '../workspace.ts';

/**
 * Files agents may read but never write: the record (`messages.json`), the curation audit log
 * (`memory.json`), the compression record (`compression.json`) and the manifest
 * (`context-config.json` — it decides what the session reads, so only the user edits it,
 * through the UI or the HTTP API; docs/security.md). Matched against where a write would
 * land after symlinks, not the path as written.
 */
export const DEFAULT_READ_ONLY_FILES = [
  'messages.json',
  'memory.json',
  'compression.json',
  'context-config.json',
] as const;

/** What `dismiss_memory` asks to store: the model's dismissal of one message. */
export interface DismissRequest {
  action: 'dismiss';
  targetMessageIds: readonly string[];
  /** The placeholder's text. */
  summary: string;
  by: 'model';
  toolCallId?: string;
}

/**
 * Stores curation where the session keeps it and returns the stored events; `not-found`
 * (nothing stored) when a target is not a stored message. The session engine's `curate`
 * fits: pass `(request) => engine.curate(sessionId, request)` so a session kept in
 * checkpoints gets the model's dismissals too.
 */
export type CurateMessages = (request: DismissRequest) => Promise<readonly CurationEvent[]>;

/** What every workspace tool runs against. */
export interface ToolContext {
  workspace: Workspace;
  sessionId: string;
  /** The session sandbox (global files readable). */
  sandbox: Sandbox;
  /** Cap of one tool output in characters. */
  maxOutputChars: number;
  /** Most search hits returned. */
  maxSearchResults: number;
  /** Work limit of one search, in characters × pattern program size. */
  maxSearchWork: number;
  readOnlyFiles: readonly string[];
  /** Where `dismiss_memory` stores its event (the session store). */
  curate: CurateMessages;
  now: () => Date;
  createId: () => string;
}
