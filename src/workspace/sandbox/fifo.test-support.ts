import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Creates a named pipe at `path` with `mkfifo`. */
export function makeFifo(path: string): void {
  execFileSync('mkfifo', [path], { stdio: 'ignore' });
}

/** Whether this platform has `mkfifo` (not Windows): tests of named pipes skip without it. */
export const HAS_MKFIFO = ((): boolean => {
  if (process.platform === 'win32') return false;
  const dir = mkdtempSync(join(tmpdir(), 'ctxloom-fifo-'));
  try {
    makeFifo(join(dir, 'probe'));
    return true;
  } catch {
    return false;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
})();

/**
 * Releases any reader stuck opening the pipe (a regression would leave one, holding a thread
 * of the pool and the test worker): a non-blocking open for writing succeeds only when a
 * reader waits, and then lets it through. Nothing waiting is fine too.
 */
export function releaseFifoReaders(path: string): void {
  try {
    closeSync(openSync(path, constants.O_WRONLY | constants.O_NONBLOCK));
  } catch {
    // ENXIO: no reader is waiting; ENOENT: the pipe is gone.
  }
}
