import { createHash } from 'node:crypto';
import { constants, open, readdir, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CtxloomError } from '../../core/index.ts';
import { fsErrorCode } from './map-fs-error.ts';
import type { VerifiedDir } from './verified-dir.ts';

/** Suffix of the temp files of atomic writes (`.<pid>-<random>.ctxloom-tmp`). */
export const TEMP_SUFFIX = '.ctxloom-tmp';
/** Suffix of the per-file write locks (`.<hash of the name>.ctxloom-lock`). */
export const LOCK_SUFFIX = '.ctxloom-lock';
/** Default longest wait for another process's write lock, in milliseconds. */
export const DEFAULT_LOCK_TIMEOUT_MS = 10_000;

/** The lock file name of `name` (hashed, so long names stay under the 255-byte limit). */
export function lockNameFor(name: string): string {
  return `.${createHash('sha256').update(name).digest('hex').slice(0, 20)}${LOCK_SUFFIX}`;
}

/** The temp file name of a write by this process. */
export function tempNameFor(random: string): string {
  return `.${process.pid}-${random}${TEMP_SUFFIX}`;
}

/** True when process `pid` runs on this machine (a signal-0 probe; EPERM still means alive). */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return fsErrorCode(error) === 'EPERM';
  }
}

/**
 * Runs `task` holding the cross-process write lock of `name` in `dir`: a lock file created
 * with `O_EXCL` that holds the owner's pid. A lock whose owner is dead (kill -9) or is this
 * process (every write of a file in one process is already serialised, so it is a leftover of
 * an earlier process with the same pid) is taken over. Another live owner is waited for up to
 * `timeoutMs`, then `conflict` is thrown naming `shown`.
 */
export async function withFileLock<T>(
  dir: VerifiedDir,
  name: string,
  options: { timeoutMs: number; shown: string },
  task: () => Promise<T>,
): Promise<T> {
  const lockPath = dir.at(lockNameFor(name));
  let waitedMs = 0;
  for (let attempt = 0; ; attempt++) {
    try {
      const handle = await open(
        lockPath,
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
        0o644,
      );
      try {
        await handle.writeFile(`${process.pid}\n`);
      } finally {
        await handle.close();
      }
      break;
    } catch (error) {
      if (fsErrorCode(error) !== 'EEXIST') throw error;
    }
    const owner = await readOwner(lockPath);
    if (owner === undefined) continue; // released between our open and read
    // -1: an empty lock file, being created right now — or left by a process killed in between.
    const stale =
      owner === -1 ? waitedMs >= options.timeoutMs : owner === process.pid || !isProcessAlive(owner);
    if (stale) {
      await unlink(lockPath).catch(() => undefined);
      continue;
    }
    if (waitedMs >= options.timeoutMs) {
      throw new CtxloomError({
        code: 'conflict',
        message: `the file is being written by another process (pid ${owner}); try again`,
        file: options.shown,
        details: { pid: owner },
      });
    }
    const delayMs = Math.min(100, 5 * 2 ** Math.min(attempt, 5));
    await sleep(delayMs);
    waitedMs += delayMs;
  }
  try {
    return await task();
  } finally {
    await unlink(lockPath).catch(() => undefined);
  }
}

async function readOwner(lockPath: string): Promise<number | undefined> {
  try {
    const pid = Number.parseInt((await readFile(lockPath, 'utf8')).trim(), 10);
    // An empty file is a lock being created right now: treat it as held by an unknown live owner.
    return Number.isNaN(pid) ? -1 : pid;
  } catch (error) {
    if (fsErrorCode(error) === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Removes what a killed process left in `root` (recursively, symlinks not followed, at most
 * `maxEntries` entries visited): temp files and lock files of processes that no longer run,
 * and temp files without a pid (written by versions before the pid was recorded). Files of
 * live processes stay. Returns how many files were removed. Errors are ignored: cleaning is
 * best effort and never blocks opening a workspace.
 */
export async function removeStaleFiles(root: string, maxEntries = 20_000): Promise<number> {
  let visited = 0;
  let removed = 0;
  const walk = async (folder: string, depth: number): Promise<void> => {
    if (depth > 32) return;
    const children = await readdir(folder, { withFileTypes: true }).catch(() => []);
    for (const child of children) {
      if (++visited > maxEntries) return;
      const full = join(folder, child.name);
      if (child.isDirectory()) await walk(full, depth + 1);
      else if (child.isFile() && (await isStale(full, child.name))) {
        await unlink(full).then(
          () => removed++,
          () => undefined,
        );
      }
    }
  };
  await walk(root, 0);
  return removed;
}

async function isStale(full: string, name: string): Promise<boolean> {
  if (name.endsWith(TEMP_SUFFIX)) {
    const pid = /^\.(\d+)-[0-9a-f]+\.ctxloom-tmp$/u.exec(name)?.[1];
    return pid === undefined || !isProcessAlive(Number(pid));
  }
  if (name.endsWith(LOCK_SUFFIX)) {
    const owner = await readOwner(full).catch(() => undefined);
    return owner !== undefined && owner !== -1 && !isProcessAlive(owner);
  }
  return false;
}
