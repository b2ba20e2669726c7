import { CtxloomError, type CtxloomErrorCode } from '../core/index.ts';
import { type BadReference, badReferencesOf, mapFsError } from '../workspace/index.ts';

/** HTTP status of every {@link CtxloomErrorCode}: the one place errors map to HTTP. */
export const STATUS_BY_CODE: Record<
  CtxloomErrorCode,
  400 | 401 | 403 | 404 | 409 | 412 | 413 | 415 | 422 | 428 | 500 | 501 | 502
> = {
  'invalid-argument': 400,
  'invalid-context-key': 400,
  'unknown-layer': 400,
  'duplicate-layer': 400,
  'invalid-config': 422,
  'parse-error': 400,
  'not-found': 404,
  'invalid-reference': 422,
  'path-escape': 403,
  'too-large': 413,
  conflict: 409,
  'reserved-name': 403,
  'precondition-failed': 412,
  'precondition-required': 428,
  unauthorized: 401,
  forbidden: 403,
  'unsupported-media-type': 415,
  'over-budget': 422,
  'reducer-violation': 409,
  'unknown-state-key': 400,
  'model-error': 502,
  'storage-error': 500,
  unsupported: 501,
  'missing-dependency': 501,
};

/** The JSON body of every error response. */
export interface ErrorBody {
  error: {
    code: CtxloomErrorCode | 'internal';
    message: string;
    /** JSON path, header or id that is wrong; else the file (relative to its sandbox). */
    path?: string;
    /** The file that is wrong (relative to its sandbox), also when `path` names a place in it. */
    file?: string;
    line?: number;
    column?: number;
    /** `invalid-reference`: every reference of the message that cannot be resolved, and why. */
    references?: BadReference[];
  };
}

/**
 * Turns any thrown value into the JSON error response `{ error: { code, message, path?, file? } }`
 * (an `invalid-reference` error adds `references`, the list of bad references).
 * `CtxloomError`s keep their code and location; raw file-system errors (`ENOENT`, `ELOOP`, …)
 * and `URIError`s are mapped by `mapFsError` first (never with the Node message, which names
 * absolute paths); anything else is a 500 `internal` whose message does not leak internals.
 */
export function toErrorResponse(thrown: unknown): Response {
  // Raw file-system errors and URIErrors become typed ones, without the Node message's paths.
  const error = mapFsError(thrown);
  if (CtxloomError.is(error)) {
    const body: ErrorBody = { error: { code: error.code, message: error.message } };
    const path = error.path ?? error.file;
    if (path !== undefined) body.error.path = path;
    if (error.file !== undefined) body.error.file = error.file;
    if (error.line !== undefined) body.error.line = error.line;
    if (error.column !== undefined) body.error.column = error.column;
    const references = badReferencesOf(error);
    if (references !== undefined) body.error.references = references;
    return Response.json(body, { status: STATUS_BY_CODE[error.code] });
  }
  const body: ErrorBody = { error: { code: 'internal', message: 'internal server error' } };
  return Response.json(body, { status: 500 });
}
