import { ApiError } from './api.ts';
import type { MessageKey, Translate } from './i18n.ts';

/** Codes the page says in its own language; any other keeps the server's sentence. */
const BY_CODE: Partial<Record<string, MessageKey>> = {
  'reserved-name': 'errorReservedName',
  conflict: 'errorConflict',
  'not-found': 'errorNotFound',
  'path-escape': 'errorPathEscape',
  'invalid-reference': 'errorInvalidReference',
};

/**
 * What went wrong, as one sentence in the page's language and without a prefix (the banner
 * adds the one "Error:"): an API error by its code (naming its path), or the error's own
 * message — never `String(error)`, which would prefix "Error: " again.
 */
export function errorText(cause: unknown, t: Translate): string {
  if (cause instanceof ApiError) {
    const key = BY_CODE[cause.code];
    if (key !== undefined && cause.path !== undefined && cause.path !== '')
      return t(key, { path: cause.path });
    return stripPrefix(cause.message);
  }
  if (cause instanceof Error) return stripPrefix(cause.message);
  return stripPrefix(String(cause));
}

/** `Error: Error: x` → `x`. */
function stripPrefix(text: string): string {
  return text.replace(/^(?:\w*Error: )+/u, '');
}
