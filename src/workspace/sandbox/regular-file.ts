import type { Stats } from 'node:fs';
import { constants } from 'node:fs/promises';
import { CtxloomError } from '../../core/index.ts';

/**
 * Flags of every read: never through a symlink (`O_NOFOLLOW`), and without waiting
 * (`O_NONBLOCK`: opening a named pipe that has no writer returns at once, and the handle's
 * `fstat` refuses it — a regular file reads as without the flag).
 */
export const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | (constants.O_NONBLOCK ?? 0);

/**
 * Refuses what an opened path is when it is not a regular file: a folder, or a named pipe,
 * socket or device (reading one could wait forever: a pipe without a writer). `invalid-argument`
 * naming `path`.
 */
export function assertRegularFile(info: Stats, path: string): void {
  if (info.isFile()) return;
  throw new CtxloomError({
    code: 'invalid-argument',
    message: info.isDirectory() ? 'is a folder, not a file' : `is ${specialKindOf(info)}, not a regular file`,
    file: path,
  });
}

/** What a file that is neither a regular file nor a folder is, for an error message. */
function specialKindOf(info: Stats): string {
  if (info.isFIFO()) return 'a named pipe (FIFO)';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  return 'a special file';
}
