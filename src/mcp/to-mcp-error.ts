import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { CtxloomError, type CtxloomErrorCode } from '../core/index.ts';
import { mapFsError } from '../workspace/sandbox/map-fs-error.ts';

/** MCP's "resource not found" error code (spec, resources). */
export const RESOURCE_NOT_FOUND = -32002;

/** JSON-RPC code of each error code; the rest are `InternalError`. */
const MCP_CODE: Partial<Record<CtxloomErrorCode, number>> = {
  'not-found': RESOURCE_NOT_FOUND,
  'path-escape': ErrorCode.InvalidParams,
  'invalid-argument': ErrorCode.InvalidParams,
  'invalid-reference': ErrorCode.InvalidParams,
  'parse-error': ErrorCode.InvalidParams,
  'invalid-config': ErrorCode.InvalidParams,
  'too-large': ErrorCode.InvalidParams,
  unsupported: ErrorCode.InvalidParams,
};

/**
 * The one mapping from anything a resource or prompt handler throws to an `McpError` with the
 * spec's code: `-32002` for a missing resource, `-32602` (invalid params) for a refused path
 * or bad argument, `-32603` otherwise. Raw file-system errors are typed first (`mapFsError`);
 * the message is the `CtxloomError`'s — never a Node message with absolute paths — and
 * `data` carries `{ code, file?, line?, column?, path? }`. An unknown error becomes
 * "internal error" with no detail.
 */
export function toMcpError(thrown: unknown): McpError {
  if (thrown instanceof McpError) return thrown;
  const error = mapFsError(thrown);
  if (!CtxloomError.is(error)) return new McpError(ErrorCode.InternalError, 'internal error');
  const { message: _message, ...data } = error.toJSON();
  return new McpError(MCP_CODE[error.code] ?? ErrorCode.InternalError, error.message, data);
}

/** The text of a tool error result: `error [code]: message`, with no server path. */
export function toolErrorText(thrown: unknown): string {
  const error = mapFsError(thrown);
  return CtxloomError.is(error)
    ? `error [${error.code}]: ${error.message}`
    : 'error [internal]: internal error';
}
