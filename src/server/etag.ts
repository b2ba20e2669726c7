import { hashText } from '../core/fingerprint.ts';

/** Strong ETag of a text (a content hash, quoted), so two editors never overwrite each other. */
export function etagOf(text: string): string {
  return `"${hashText(text)}-${text.length.toString(36)}"`;
}

/** True when an `If-Match` header value allows writing over `current` (`*` or a listed tag). */
export function ifMatchAllows(header: string, current: string | undefined): boolean {
  const tags = header.split(',').map((tag) => tag.trim().replace(/^W\//u, ''));
  if (tags.includes('*')) return current !== undefined;
  return current !== undefined && tags.includes(etagOf(current));
}

/**
 * True when an `If-None-Match` header value names `etag` (or is `*`): the client's copy is
 * current and a GET answers `304 Not Modified`. Weak comparison, as RFC 9110 asks for GET.
 */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const tags = header.split(',').map((tag) => tag.trim().replace(/^W\//u, ''));
  return tags.includes('*') || tags.includes(etag);
}
