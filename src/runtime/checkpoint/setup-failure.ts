import { CtxloomError } from '../../core/errors.ts';

/**
 * Why the first statement against the store failed, in words, for the reasons a user can act
 * on (the server's or the socket's code); otherwise a pointer to the cause, which keeps the
 * driver's own error whole.
 */
export function setupFailure(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  switch (code) {
    case 'ECONNREFUSED':
      return 'the database server refused the connection (is it running, at that host and port?)';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'the database host was not found';
    case 'ETIMEDOUT':
      return 'the connection to the database server timed out';
    case '3D000':
      return 'the database does not exist';
    case '28P01':
    case '28000':
      return 'the server refused the credentials';
    case '42501':
      return 'the user may not create or use the checkpoint tables (permission denied)';
    case '3F000':
      return 'the schema does not exist';
    default:
      return 'see the cause';
  }
}

/** Errors a driver made of the database's own; {@link driverCause} hands back the original. */
const DRIVER_ERRORS = new WeakSet<object>();

/** Marks `error` as a driver's typed form of the database's error (its `cause`). */
export function fromDriver<T extends object>(error: T): T {
  DRIVER_ERRORS.add(error);
  return error;
}

/** The database's own error behind a driver's typed one (so setup can word it), else `error`. */
export function driverCause(error: unknown): unknown {
  return typeof error === 'object' && error !== null && DRIVER_ERRORS.has(error)
    ? (error as { cause?: unknown }).cause
    : error;
}

/**
 * PostgreSQL's error of a statement (a full disk, a read-only server, a permission, a dropped
 * connection) as a {@link CtxloomError} with it as `cause`: `conflict` for a serialisation
 * failure, a deadlock or a lock not available, else `storage-error`. Anything else (a bug) is
 * returned as it is.
 */
export function postgresError(error: unknown): unknown {
  if (CtxloomError.is(error) || !(error instanceof Error)) return error;
  const code = (error as { code?: unknown }).code;
  const sqlstate = typeof code === 'string' && /^[0-9A-Z]{5}$/u.test(code) ? code : undefined;
  const system = typeof code === 'string' && /^E[A-Z]+$/u.test(code);
  if (sqlstate === undefined && !system && !/^Connection terminated/u.test(error.message)) return error;
  const known = setupFailure(error);
  const reason = known === 'see the cause' ? error.message : `${known}: ${error.message}`;
  const conflict = sqlstate !== undefined && (sqlstate.startsWith('40') || sqlstate === '55P03');
  return fromDriver(
    new CtxloomError({
      code: conflict ? 'conflict' : 'storage-error',
      message: `PostgreSQL: ${reason}`,
      ...(sqlstate === undefined ? {} : { details: { sqlstate } }),
      cause: error,
    }),
  );
}
