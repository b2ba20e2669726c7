/**
 * Every code a {@link CtxloomError} can carry. One documented list, shared by the whole
 * package; the HTTP server maps them to status codes in one place.
 *
 * - `invalid-argument` — a function was called with a value outside its documented range.
 * - `invalid-context-key` — a context key does not end in `__context`.
 * - `unknown-layer` / `duplicate-layer` — layer registry misuse.
 * - `invalid-config` — a manifest or options object failed validation (path says where).
 * - `parse-error` — a file or payload could not be parsed (file/line/column say where).
 * - `not-found` — a file, block, session, message or reference does not exist.
 * - `invalid-reference` — references of a message cannot be resolved; `details.references`
 *   lists every one (what was written, where, the file, the lines or block, and why).
 * - `path-escape` — a path tried to leave its sandbox.
 * - `too-large` — an input exceeded a documented size limit.
 * - `conflict` — a write collides with what exists (a name taken, a message id already stored).
 * - `precondition-failed` — a write was based on a stale version (`If-Match` names another ETag).
 * - `precondition-required` — a write would replace a file without saying which version it read
 *   (no `If-Match`).
 * - `reserved-name` — a file ctxloom keeps for itself (the record, the curation log, the
 *   compression state, the call log, lock and temp files) was to be written, renamed, renamed
 *   onto or deleted through a route that only serves the user's files (`path` names it).
 * - `unauthorized` — a request lacked the required credentials.
 * - `forbidden` — a request came from a foreign site or host (`Origin`/`Host` check).
 * - `unsupported-media-type` — a write request's body is not `application/json`.
 * - `over-budget` — compaction could not bring a request under its window.
 * - `reducer-violation` — a state patch broke a reducer rule.
 * - `unknown-state-key` — a state patch named a field the schema does not have.
 * - `model-error` — a model call failed or returned output that does not validate; a turn's
 *   failure says why in `details.reason` (`provider` with `status`, `invalid-response`, or
 *   `timeout` with `timeoutMs`: the model was silent longer than the engine's `modelTimeoutMs`).
 * - `storage-error` — a checkpoint or memory store failed; `details.reason` `pool-exhausted`: every
 *   connection of a PostgreSQL pool stayed in use for its `connectionTimeoutMs` (10 s by default).
 * - `unsupported` — the operation is not supported by this implementation, or by this Node.js
 *   release (a SQLite store on a Node.js without `node:sqlite`: `path` is `node:sqlite`).
 * - `missing-dependency` — an optional peer package the feature needs is not installed
 *   (`path` names the package to `npm install`).
 */
export const ERROR_CODES = [
  'invalid-argument',
  'invalid-context-key',
  'unknown-layer',
  'duplicate-layer',
  'invalid-config',
  'parse-error',
  'not-found',
  'invalid-reference',
  'path-escape',
  'too-large',
  'conflict',
  'reserved-name',
  'precondition-failed',
  'precondition-required',
  'unauthorized',
  'forbidden',
  'unsupported-media-type',
  'over-budget',
  'reducer-violation',
  'unknown-state-key',
  'model-error',
  'storage-error',
  'unsupported',
  'missing-dependency',
] as const;

/** A code from {@link ERROR_CODES}. */
export type CtxloomErrorCode = (typeof ERROR_CODES)[number];

/** Where in an input something is wrong. Every field is optional; give what is known. */
export interface ErrorLocation {
  /** File path, relative to its sandbox root when there is one. */
  file?: string;
  /** 1-based line. */
  line?: number;
  /** 1-based column. */
  column?: number;
  /** JSON path such as `budget.allocations.retrieval` or a key such as `todo__context`. */
  path?: string;
}

/** Options of {@link CtxloomError}. */
export interface CtxloomErrorOptions extends ErrorLocation {
  code: CtxloomErrorCode;
  message: string;
  cause?: unknown;
  /** Extra machine-readable detail, e.g. the closest existing block id. */
  details?: Record<string, unknown>;
}

/**
 * The one error type ctxloom throws for misuse and bad input. Expected outcomes (over budget,
 * dropped blocks) are data in the report, never errors.
 */
export class CtxloomError extends Error {
  override readonly name = 'CtxloomError';
  readonly code: CtxloomErrorCode;
  readonly file: string | undefined;
  readonly line: number | undefined;
  readonly column: number | undefined;
  readonly path: string | undefined;
  readonly details: Record<string, unknown> | undefined;

  constructor(options: CtxloomErrorOptions) {
    super(formatMessage(options), options.cause === undefined ? undefined : { cause: options.cause });
    this.code = options.code;
    this.file = options.file;
    this.line = options.line;
    this.column = options.column;
    this.path = options.path;
    this.details = options.details;
  }

  /** A JSON-safe view: `{ code, message, file?, line?, column?, path? }`. */
  toJSON(): Record<string, unknown> {
    const json: Record<string, unknown> = { code: this.code, message: this.message };
    if (this.file !== undefined) json.file = this.file;
    if (this.line !== undefined) json.line = this.line;
    if (this.column !== undefined) json.column = this.column;
    if (this.path !== undefined) json.path = this.path;
    if (this.details !== undefined) json.details = this.details;
    return json;
  }

  /** True when `value` is a CtxloomError (optionally with the given code). */
  static is(value: unknown, code?: CtxloomErrorCode): value is CtxloomError {
    return value instanceof CtxloomError && (code === undefined || value.code === code);
  }
}

function formatMessage(options: CtxloomErrorOptions): string {
  const where: string[] = [];
  // An empty file (the session folder itself) names nothing: never "… ()".
  if (options.file !== undefined && options.file !== '') {
    let location = options.file;
    if (options.line !== undefined) location += `:${options.line}`;
    if (options.column !== undefined) location += `:${options.column}`;
    where.push(location);
  }
  // An empty JSON path is the whole value: the file alone says where.
  if (options.path !== undefined && options.path !== '') where.push(`at ${options.path}`);
  return where.length > 0 ? `${options.message} (${where.join(' ')})` : options.message;
}
