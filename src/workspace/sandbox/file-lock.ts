import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { constants, type FileHandle, open, readdir, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CtxloomError } from '../../core/index.ts';
import { fsErrorCode } from './map-fs-error.ts';
import { READ_FLAGS } from './regular-file.ts';
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

/** Who holds a lock, as its file says. */
export interface LockOwner {
  pid: number;
  /** Host name of the owner; absent in locks written before owners were recorded. */
  host?: string;
  /** The owner's start time (Linux: clock ticks after boot, `/proc/<pid>/stat`); absent when unknown. */
  start?: string;
}

/**
 * The start time of process `pid` on Linux (field 22 of `/proc/<pid>/stat`, clock ticks after
 * boot), or `undefined` where there is no `/proc` or the process is gone. A pid and its start
 * time name one process: a reused pid has another start.
 */
export function processStartOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces and parentheses) start at field 3.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** The text of a lock file owned by `pid` on this host (default: this process). */
export function formatLockOwner(pid: number = process.pid): string {
  return `${pid} ${hostname()} ${processStartOf(pid) ?? '-'}\n`;
}

/**
 * Whether the owner a lock names still holds it: `'alive'` (this host, the pid runs, and its
 * start time matches when both are known), `'dead'` (this host and the pid is gone or now
 * another process), `'unknown'` (another host, or a lock without host and start — written by
 * an older version or by anyone else — whose pid runs: nothing proves it is ours).
 */
export function judgeLockOwner(owner: LockOwner): 'alive' | 'dead' | 'unknown' {
  if (owner.host !== undefined && owner.host !== hostname()) return 'unknown';
  if (!isProcessAlive(owner.pid)) return 'dead';
  if (owner.host === undefined) return 'unknown';
  const start = processStartOf(owner.pid);
  if (owner.start !== undefined && start !== undefined && owner.start !== start) return 'dead';
  return 'alive';
}

/**
 * Runs `task` holding the cross-process write lock of `name` in `dir`: a lock file created
 * with `O_EXCL` that holds the owner's pid, host name and start time ({@link formatLockOwner}).
 * A lock is taken over at once when its owner is dead or is a reused pid (kill -9), or is this
 * process (every write of a file in one process is already serialised, so it is a leftover of
 * an earlier process with the same pid). A live owner on this host is waited for up to
 * `timeoutMs`, then `conflict` is thrown naming `shown`. A lock that cannot be judged — no
 * host and start (an older version's, or a file anyone wrote holding, say, pid 1), or an empty
 * one — is waited for up to `timeoutMs` too, then broken: it never blocks a file for good.
 * A lock naming another host is waited for, then `conflict` (shared network folders are not
 * supported; docs/security.md).
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
        await handle.writeFile(formatLockOwner());
      } finally {
        await handle.close();
      }
      break;
    } catch (error) {
      if (fsErrorCode(error) !== 'EEXIST') throw error;
    }
    const owner = await readOwner(lockPath);
    if (owner === undefined) continue; // released between our open and read
    const timedOut = waitedMs >= options.timeoutMs;
    // undefined pid: an empty or unreadable lock file, being created right now — or left by a
    // process killed in between, or written by someone else.
    const state =
      owner.pid === undefined
        ? 'unknown'
        : owner.pid === process.pid
          ? 'dead'
          : judgeLockOwner(owner as LockOwner);
    const foreignHost = owner.host !== undefined && owner.host !== hostname();
    if (state === 'dead' || (state === 'unknown' && timedOut && !foreignHost)) {
      await unlink(lockPath).catch(() => undefined);
      continue;
    }
    if (timedOut) {
      throw new CtxloomError({
        code: 'conflict',
        message: `the file is being written by another process (pid ${owner.pid ?? '?'}${foreignHost ? ` on ${owner.host}` : ''}); try again`,
        file: options.shown,
        details: { pid: owner.pid ?? -1, ...(foreignHost ? { host: owner.host } : {}) },
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

/** The owner a lock file names (`pid` undefined for an empty or unparsable one), or `undefined` when it is gone. */
async function readOwner(lockPath: string): Promise<Partial<LockOwner> | undefined> {
  let handle: FileHandle;
  try {
    // Without waiting: a named pipe in the lock's place must not stall the write (nor a thread).
    handle = await open(lockPath, READ_FLAGS);
  } catch (error) {
    if (fsErrorCode(error) === 'ENOENT') return undefined;
    if (fsErrorCode(error) === 'ELOOP') return {}; // a symlink names no owner either
    throw error;
  }
  try {
    // Anything but a small regular file names no owner: an unknown one, removed after the wait.
    const info = await handle.stat();
    if (!info.isFile() || info.size > 1024) return {};
    return parseLockOwner(await handle.readFile('utf8'));
  } finally {
    await handle.close();
  }
}

/** Reads `pid host start` (this version) or a bare `pid` (older versions). */
export function parseLockOwner(text: string): Partial<LockOwner> {
  const match = /^(\d{1,10})(?: (\S{1,255}) (\d{1,20}|-))?\s*$/u.exec(text.trim());
  if (match === null) return {};
  const pid = Number(match[1]);
  if (match[2] === undefined) return { pid };
  return { pid, host: match[2], ...(match[3] === '-' ? {} : { start: match[3] }) };
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
    return owner?.pid !== undefined && judgeLockOwner(owner as LockOwner) === 'dead';
  }
  return false;
}
