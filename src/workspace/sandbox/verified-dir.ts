import { existsSync } from 'node:fs';
import { constants, type FileHandle, mkdir, open, readlink, realpath, stat } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { CtxloomError } from '../../core/index.ts';
import { fsErrorCode } from './map-fs-error.ts';
import { refuse } from './validate-path.ts';

/**
 * On Linux an open folder's entries are reachable as `/proc/self/fd/<fd>/<name>`: the kernel
 * resolves that through the open handle, never through the folder's path again, which gives
 * `openat`-style access from Node (which has no `openat`).
 */
const PROC_FD = process.platform === 'linux' && existsSync('/proc/self/fd');

/** A folder opened and checked to be inside a sandbox root; its entries are reached through the handle. */
export interface VerifiedDir {
  /** Real path of the folder when it was checked. */
  readonly real: string;
  /** A path naming `name` inside this very folder (through the handle on Linux). */
  at(name: string): string;
  /** fsyncs the folder (its entries: a rename or a new file become durable). */
  sync(): Promise<void>;
  close(): Promise<void>;
}

/** True when `real` is `root` or below it. */
export function isInside(root: string, real: string): boolean {
  // The file-system root already ends in a separator: `/` + `/` would match nothing.
  return real === root || real.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** The real path of an open handle: from `/proc` on Linux, else `realpath` of `fallback`. */
export async function realPathOf(handle: FileHandle, fallback: string): Promise<string> {
  if (PROC_FD) return readlink(`/proc/self/fd/${handle.fd}`);
  const real = await realpath(fallback);
  // Without /proc: the handle must still be the object now at `real` (no swap in between).
  const [held, current] = await Promise.all([handle.stat(), stat(real)]);
  if (held.ino !== current.ino || held.dev !== current.dev) return '';
  return real;
}

/**
 * Opens the folder `segments` below `root` (a real path), one segment at a time and never
 * following a symlink (`O_NOFOLLOW`), creating missing folders when `create` is set. Each
 * step goes through the previous folder's handle, and the result is checked to be inside
 * `root` after it is open, so a symlink swapped into the path at any moment cannot move the
 * folder outside. Refuses with `path-escape` naming `shown`.
 */
export async function openVerifiedDir(
  root: string,
  segments: readonly string[],
  options: { create: boolean; shown: string },
): Promise<VerifiedDir> {
  const flags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
  let handle = await open(root, constants.O_RDONLY | constants.O_DIRECTORY);
  let real = root;
  try {
    for (const segment of segments) {
      const path = PROC_FD ? `/proc/self/fd/${handle.fd}/${segment}` : join(real, segment);
      let next: FileHandle;
      try {
        next = await open(path, flags);
      } catch (error) {
        if (fsErrorCode(error) === 'ELOOP') {
          throw refuse(options.shown, 'a parent folder became a symlink during the write');
        }
        if (fsErrorCode(error) === 'ENOTDIR') throw notAFolder(options.shown);
        if (fsErrorCode(error) !== 'ENOENT' || !options.create) throw error;
        await mkdir(path).catch((cause: unknown) => {
          if (fsErrorCode(cause) !== 'EEXIST') throw cause;
        });
        next = await open(path, flags).catch((cause: unknown) => {
          if (fsErrorCode(cause) === 'ELOOP') {
            throw refuse(options.shown, 'a parent folder became a symlink during the write');
          }
          if (fsErrorCode(cause) === 'ENOTDIR') throw notAFolder(options.shown);
          throw cause;
        });
      }
      await handle.close();
      handle = next;
      real = join(real, segment);
    }
    const actual = await realPathOf(handle, real);
    if (!isInside(root, actual)) throw refuse(options.shown, 'a parent folder resolves outside the sandbox');
    real = actual;
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
  const held = handle;
  return {
    real,
    at: (name) => (PROC_FD ? `/proc/self/fd/${held.fd}/${name}` : join(real, name)),
    async sync() {
      try {
        await held.sync();
      } catch (error) {
        // Some platforms cannot fsync a folder (EINVAL/EPERM/EBADF); the file itself was synced.
        if (!['EINVAL', 'EPERM', 'EBADF', 'EISDIR'].includes(fsErrorCode(error) ?? '')) throw error;
      }
    },
    close: () => held.close(),
  };
}

function notAFolder(shown: string): CtxloomError {
  return new CtxloomError({
    code: 'invalid-argument',
    message: 'a parent of the path is a file, not a folder',
    file: shown,
  });
}
