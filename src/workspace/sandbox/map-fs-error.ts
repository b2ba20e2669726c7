import { CtxloomError, type CtxloomErrorCode } from '../../core/index.ts';

/** Node `code`s of file-system errors and the {@link CtxloomError} each becomes. */
const FS_ERRORS: Record<string, { code: CtxloomErrorCode; message: string }> = {
  ENOENT: { code: 'not-found', message: 'no such file' },
  ENOTDIR: { code: 'not-found', message: 'a parent of the path is a file, not a folder' },
  EISDIR: { code: 'invalid-argument', message: 'is a folder, not a file' },
  EEXIST: { code: 'conflict', message: 'the file already exists' },
  ENOTEMPTY: { code: 'conflict', message: 'the folder is not empty' },
  ELOOP: { code: 'path-escape', message: 'too many symlinks, or a symlink where none is allowed' },
  ENAMETOOLONG: { code: 'path-escape', message: 'the path is too long for the file system' },
  EACCES: { code: 'storage-error', message: 'permission denied' },
  EPERM: { code: 'storage-error', message: 'operation not permitted' },
  EROFS: { code: 'storage-error', message: 'the file system is read-only' },
  ENOSPC: { code: 'storage-error', message: 'no space left on the device' },
  EDQUOT: { code: 'storage-error', message: 'disk quota exceeded' },
  EMFILE: { code: 'storage-error', message: 'too many open files' },
  ENFILE: { code: 'storage-error', message: 'too many open files' },
  EBUSY: { code: 'storage-error', message: 'the file is busy' },
  EIO: { code: 'storage-error', message: 'input/output error' },
  EXDEV: { code: 'storage-error', message: 'cannot move a file across file systems' },
};

/** The Node error code (`ENOENT`, …) of `error`, if it has one. */
export function fsErrorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * The one mapping from raw errors to typed ones at the sandbox boundary: a `CtxloomError` is
 * returned as is; a Node file-system error (`ENOENT`, `ELOOP`, `EISDIR`, `EEXIST`, …) becomes
 * the matching `CtxloomError` naming `file` — the path *as the caller gave it*, relative to its
 * sandbox — never the absolute server path in the Node message (kept only as `cause`);
 * a `URIError` (bad percent-encoding) becomes `invalid-argument`. Anything else is returned
 * unchanged (a bug, which the server reports as a 500 without details).
 */
export function mapFsError(error: unknown, file?: string): unknown {
  if (CtxloomError.is(error)) return error;
  const location = file === undefined ? {} : { file };
  if (error instanceof URIError) {
    return new CtxloomError({
      code: 'invalid-argument',
      message: 'bad percent-encoding',
      ...location,
      cause: error,
    });
  }
  const code = fsErrorCode(error);
  const known = code === undefined ? undefined : FS_ERRORS[code];
  if (known === undefined) {
    if (code === undefined || !/^E[A-Z]+$/u.test(code)) return error;
    return new CtxloomError({
      code: 'storage-error',
      message: `file system error ${code}`,
      ...location,
      cause: error,
    });
  }
  return new CtxloomError({
    code: known.code,
    message: `${known.message} (${code})`,
    ...location,
    cause: error,
  });
}

/** Whether a file-system error says the path (or a folder on it) does not exist. */
export function isMissing(error: unknown): boolean {
  const code = fsErrorCode(error);
  return code === 'ENOENT' || code === 'ENOTDIR';
}
