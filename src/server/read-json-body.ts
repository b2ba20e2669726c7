import type { Context } from 'hono';
import type { z } from 'zod';
import { CtxloomError } from '../core/index.ts';
import { parseJsonText } from '../workspace/index.ts';
import { decodeText } from '../workspace/sandbox/decode-text.ts';

/**
 * Reads the request body as JSON and validates it with `schema`. Throws `parse-error` (with
 * line and column) for malformed JSON and `invalid-argument` (with the JSON path) for a body of the wrong shape.
 * Size is limited earlier, by the app's body-limit middleware.
 */
export async function readJsonBody<Schema extends z.ZodType>(
  context: Context,
  schema: Schema,
): Promise<z.output<Schema>> {
  const text = await readBodyText(context);
  const value = text.trim() === '' ? {} : parseJsonText(text, 'request body');
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new CtxloomError({
    code: 'invalid-argument',
    message: `invalid request body: ${issue?.message ?? 'wrong shape'}`,
    path: (issue?.path ?? []).map(String).join('.'),
    cause: result.error,
  });
}

/**
 * The request body as text: strict UTF-8, as the sandbox reads files. Bytes that are not UTF-8,
 * or a NUL (UTF-16 text has them), are a `parse-error` "request body is not UTF-8 JSON" (with
 * the line of bad UTF-8), never decoded to U+FFFD and stored as if sent, nor called a binary file.
 */
export async function readBodyText(context: Context): Promise<string> {
  try {
    return decodeText(new Uint8Array(await context.req.arrayBuffer()), 'request body');
  } catch (cause) {
    if (!CtxloomError.is(cause, 'parse-error') && !CtxloomError.is(cause, 'unsupported')) throw cause;
    throw new CtxloomError({
      code: 'parse-error',
      message: 'request body is not UTF-8 JSON',
      file: 'request body',
      ...(cause.line === undefined ? {} : { line: cause.line }),
      cause,
    });
  }
}
