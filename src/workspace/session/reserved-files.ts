import { LOCK_SUFFIX, TEMP_SUFFIX } from '../sandbox/file-lock.ts';

/**
 * The name whose lock a session turn holds (the files store's `holdTurn`); no file of it is
 * written. Reserved so that a tool or a route cannot write it: a write waits for the lock of
 * its name, so a tool writing it inside a turn would wait for the turn that waits for the tool.
 */
export const TURN_LOCK_NAME = 'messages.json.turn';

/**
 * Top-level names of a session folder that ctxloom keeps for itself: the record
 * (`messages.json`), the curation log (`memory.json`), the compression record
 * (`compression.json`), the manifest (`context-config.json`), the call log folder (`calls/`,
 * every file under it) and the turn lock's name ({@link TURN_LOCK_NAME}). Besides these, every
 * lock file (`*.ctxloom-lock`) and temp file (`*.ctxloom-tmp`) at any depth is reserved.
 */
export const RESERVED_SESSION_NAMES = [
  'messages.json',
  'memory.json',
  'compression.json',
  'context-config.json',
  'calls',
  TURN_LOCK_NAME,
] as const;

/** One reserved name: a top-level name of {@link RESERVED_SESSION_NAMES}, or a lock or temp file. */
export type ReservedName = (typeof RESERVED_SESSION_NAMES)[number] | 'lock file' | 'temp file';

/**
 * Which reserved name `path` is, or `undefined` when it is none. `path` is where the file
 * sits relative to the real session root, links already resolved (`Sandbox.canonical` or
 * `Sandbox.locate`). Each segment is compared case-folded, with trailing dots and spaces
 * removed, so `Memory.JSON.` — the same file on a case-insensitive or Windows file system —
 * is `memory.json` too; `calls/head.json` and `CALLS/x` are `calls`.
 */
export function reservedNameOf(path: string): ReservedName | undefined {
  const segments = foldName(path).split('/');
  if (segments.some((segment) => segment.endsWith(LOCK_SUFFIX))) return 'lock file';
  if (segments.some((segment) => segment.endsWith(TEMP_SUFFIX))) return 'temp file';
  const first = segments[0];
  return RESERVED_SESSION_NAMES.find((name) => name === first);
}

/**
 * Whether `path` (from the session folder, links resolved) is the call log's folder or inside
 * it: the files store's one record per model call. Folder walks that look for the files a
 * session works on (the agent's `list_files` and `search`, the MCP resource list, retrieval's
 * default files) leave it out, so a long session's log does not crowd those files out.
 */
export function isCallLog(path: string): boolean {
  return reservedNameOf(path) === 'calls';
}

/**
 * `path` as file systems may treat it alike: segments case-folded, trailing dots and spaces
 * removed, empty and `.` segments dropped (`./Memory.JSON.` → `memory.json`).
 */
export function foldName(path: string): string {
  return path
    .split('/')
    .filter((segment) => segment !== '' && segment !== '.')
    .map((segment) => segment.toLowerCase().replace(/[. ]+$/u, ''))
    .join('/');
}
