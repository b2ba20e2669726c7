import { APICallError, JSONParseError, RetryError, TypeValidationError } from 'ai';
import { CtxloomError } from '../core/index.ts';

/** Options of {@link toModelError}. */
export interface ToModelErrorOptions {
  /** What the model call threw or streamed as its error. */
  error: unknown;
  /** The model spec, e.g. `openai-compatible:http://…#qwen` (named in the message). */
  spec: string;
  /** Set when the call was ended by the engine's `modelTimeoutMs`. */
  timeoutMs?: number;
}

/** Longest provider text kept in the one-line message. */
const MAX_TEXT = 300;

/**
 * A failed model call as one typed `model-error` with a one-line message a person can act on
 * (`the model openai:gpt-4o failed: Rate limit reached (HTTP 429, after 3 attempts)`), the
 * provider's error as `cause` (for a debug log) and `details` a program can branch on
 * (`status`, `attempts`, `timeoutMs`, `reason`). Never throws.
 */
export function toModelError(options: ToModelErrorOptions): CtxloomError {
  const { error, spec } = options;
  if (CtxloomError.is(error)) return error;
  if (options.timeoutMs !== undefined) {
    return new CtxloomError({
      code: 'model-error',
      message: `the model ${spec} sent nothing for ${options.timeoutMs} ms (modelTimeoutMs): the call was stopped`,
      cause: error,
      details: { reason: 'timeout', timeoutMs: options.timeoutMs },
    });
  }
  const attempts = RetryError.isInstance(error) ? error.errors.length : 1;
  const last = RetryError.isInstance(error) ? error.lastError : error;
  const details: Record<string, unknown> = { reason: 'provider' };
  let text: string;
  if (APICallError.isInstance(last)) {
    details.status = last.statusCode;
    text = `${providerMessage(last) ?? last.message}${last.statusCode === undefined ? '' : ` (HTTP ${last.statusCode}${attempts > 1 ? `, after ${attempts} attempts` : ''})`}`;
  } else if (JSONParseError.isInstance(last) || TypeValidationError.isInstance(last)) {
    details.reason = 'invalid-response';
    text = `its reply is not valid JSON (${firstLine(last.message)})`;
  } else {
    text = last instanceof Error ? firstLine(last.message) : firstLine(String(last));
  }
  if (attempts > 1) details.attempts = attempts;
  return new CtxloomError({
    code: 'model-error',
    message: `the model ${spec} failed: ${clip(text)}`,
    cause: error,
    details,
  });
}

/** The provider's own `error.message` of an OpenAI-style error body, when there is one. */
function providerMessage(error: APICallError): string | undefined {
  const data = error.data as { error?: { message?: unknown } } | undefined;
  const message = data?.error?.message;
  return typeof message === 'string' && message !== '' ? firstLine(message) : undefined;
}

function firstLine(text: string): string {
  return text.split('\n', 1)[0]?.trim() ?? '';
}

function clip(text: string): string {
  return text.length <= MAX_TEXT ? text : `${text.slice(0, MAX_TEXT - 1)}…`;
}
