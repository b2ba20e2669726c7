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
 * The request body as text: strict UTF-8, as the sandbox reads files (bytes that are not UTF-8
 * are a `parse-error` naming the line, never decoded to U+FFFD and stored as if sent).
 */
export async function readBodyText(context: Context): Promise<string> {
  return decodeText(new Uint8Array(await context.req.arrayBuffer()), 'request body');
}
