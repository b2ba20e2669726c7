import { CtxloomError } from '../../core/index.ts';
import { shorten } from '../../core/shorten.ts';

/** Default longest accepted relative path, in UTF-16 code units. */
export const DEFAULT_MAX_PATH_LENGTH = 1024;
/** Longest accepted single path segment, in UTF-8 bytes (the common file-system limit). */
export const MAX_SEGMENT_BYTES = 255;

/** Options of {@link validateRelativePath}. */
export interface ValidatePathOptions {
  /** Longest accepted path in UTF-16 code units. Default {@link DEFAULT_MAX_PATH_LENGTH}, range ≥ 1. */
  maxPathLength?: number;
}

/**
 * Checks a sandbox path lexically, before the file system is touched, and returns its
 * normalised segments (`.` and empty segments removed). Refuses with `path-escape`, naming the
 * path, what could leave the sandbox, and with `invalid-argument` a path (or segment) that is
 * only too long — both found by {@link relativePathProblem}. `""` and `"."` mean the root.
 */
export function validateRelativePath(path: unknown, options: ValidatePathOptions = {}): string[] {
  if (typeof path !== 'string') throw refuse(String(path), 'a path must be a string');
  const leaves = escapeProblem(path);
  if (leaves !== undefined) throw refuse(path, leaves);
  const length = lengthProblem(path, options);
  if (length !== undefined) {
    const shown = shorten(path);
    throw new CtxloomError({
      code: 'invalid-argument',
      message: `refused path ${JSON.stringify(shown)}: ${length}`,
      file: shown,
    });
  }
  return path.split('/').filter((segment) => segment !== '' && segment !== '.');
}

/**
 * Why `path` cannot name a file inside a sandbox, or undefined when it can: absolute paths
 * (POSIX, drive letters, UNC), `..` segments, NUL and other control characters, backslashes,
 * percent-encoded separators, dots and NUL (`%2f`, `%5c`, `%2e`, `%00`), segments over 255
 * bytes and paths over `maxPathLength`. Lexical only (what a manifest can be checked for
 * before it is written).
 */
export function relativePathProblem(path: string, options: ValidatePathOptions = {}): string | undefined {
  return escapeProblem(path) ?? lengthProblem(path, options);
}

/** What in `path` could name something outside the sandbox (or no file at all). */
function escapeProblem(path: string): string | undefined {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we refuse
  if (/[\u0000-\u001f\u007f]/u.test(path)) return 'path contains a NUL or control character';
  if (path.includes('\\')) return 'path contains a backslash';
  if (/%(?:2f|5c|2e|00)/iu.test(path)) return 'path contains a percent-encoded separator or dot';
  if (path.startsWith('/') || /^[a-z]:/iu.test(path)) return 'absolute paths are not allowed';
  if (path.startsWith('~')) return 'home-relative paths are not allowed';
  if (path.split('/').includes('..')) return 'path contains ".."';
  return undefined;
}

/** A path longer than `maxPathLength`, or a segment longer than the file systems take. */
function lengthProblem(path: string, options: ValidatePathOptions): string | undefined {
  const maxPathLength = options.maxPathLength ?? DEFAULT_MAX_PATH_LENGTH;
  if (path.length > maxPathLength) return `path is longer than ${maxPathLength} characters`;
  for (const segment of path.split('/')) {
    if (Buffer.byteLength(segment, 'utf8') > MAX_SEGMENT_BYTES) {
      return `a path segment is longer than ${MAX_SEGMENT_BYTES} bytes`;
    }
  }
  return undefined;
}

/**
 * A `path-escape` error naming the offending path (`file`), shortened to 200 characters: an
 * error about a megabyte path does not send the megabyte back.
 */
export function refuse(path: string, reason: string): CtxloomError {
  const shown = shorten(path);
  return new CtxloomError({
    code: 'path-escape',
    message: `refused path ${JSON.stringify(shown)}: ${reason}`,
    file: shown,
  });
}
