import type { Sandbox } from '../sandbox/create-sandbox.ts';
import type { Workspace } from '../workspace.ts';

/** Files agents may read but never write: the record and the audit log. */
export const DEFAULT_READ_ONLY_FILES = ['messages.json', 'memory.json'] as const;

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
  now: () => Date;
  createId: () => string;
}
