import { randomBytes } from 'node:crypto';
import { constants, type FileHandle, lstat, open, realpath, rename, stat, unlink } from 'node:fs/promises';
import { basename, join, relative, sep } from 'node:path';
import { CtxloomError } from '../../core/index.ts';
import { decodeText } from './decode-text.ts';
import { DEFAULT_LOCK_TIMEOUT_MS, removeStaleFiles, tempNameFor, withFileLock } from './file-lock.ts';
import { fileTexts } from './file-text-cache.ts';
import { listFolder } from './list-folder.ts';
import { fsErrorCode, isMissing, mapFsError } from './map-fs-error.ts';
import { assertRegularFile, READ_FLAGS } from './regular-file.ts';
import { runSerialised } from './serial-queue.ts';
import { assertStorableText } from './storable-text.ts';
import { applyEdit, type ReadFile, type TextEdit } from './text-edit.ts';
import { refuse, validateRelativePath } from './validate-path.ts';
import { isInside, openVerifiedDir, realPathOf, type VerifiedDir } from './verified-dir.ts';

export type { TextEdit } from './text-edit.ts';

/** Default read limit: 8 MiB per file. */
export const DEFAULT_MAX_READ_BYTES = 8 * 1024 * 1024;
/** Default write limit: 8 MiB per file. */
export const DEFAULT_MAX_WRITE_BYTES = 8 * 1024 * 1024;

/** Options of {@link createSandbox}. */
export interface SandboxOptions {
  /** The folder every path is resolved inside (a session folder or the workspace). */
  root: string;
  /** Largest file read, in bytes. Default {@link DEFAULT_MAX_READ_BYTES}. */
  maxReadBytes?: number;
  /** Largest file written, in bytes. Default {@link DEFAULT_MAX_WRITE_BYTES}. */
  maxWriteBytes?: number;
  /** Longest accepted relative path, in characters. Default 1024. */
  maxPathLength?: number;
  /**
   * Read-only fallback for global files: a top-level name in `files` that does not exist in
   * this sandbox is read from `sandbox` instead (the workspace's `profile.md`, …). Nothing
   * else of the fallback is reachable, so other sessions' folders stay closed.
   */
  globals?: { sandbox: Sandbox; files: readonly string[] };
  /**
   * Longest wait, in milliseconds, for another process's write lock on a file before
   * `conflict`. Default {@link DEFAULT_LOCK_TIMEOUT_MS}, range ≥ 0.
   */
  lockTimeoutMs?: number;
  /**
   * Remove temp and lock files left by killed processes when the sandbox is first used.
   * Default true.
   */
  cleanStaleFiles?: boolean;
}

/** One entry of {@link Sandbox.list}. */
export interface SandboxEntry {
  /** Path relative to the sandbox root, `/`-separated. */
  path: string;
  kind: 'file' | 'directory';
  /** Bytes; 0 for directories. */
  size: number;
}

/** Options of {@link Sandbox.list}. */
export interface ListOptions {
  /** Descend into sub-folders. Default false. */
  recursive?: boolean;
  /** Stop after this many entries. Default 1000. */
  maxEntries?: number;
  /**
   * A folder (by its path from the root, as listed) whose entries are left out: the folder is
   * listed, nothing under it. Default none.
   */
  skipInside?: (path: string) => boolean;
}

/**
 * The only way ctxloom touches files. Every path is checked lexically
 * ({@link validateRelativePath}), then resolved with `realpath` and refused when it lands
 * outside the root (a symlink that leaves). Files are then opened and checked again through
 * their open handle, and writes go through a handle of the checked parent folder, so a
 * symlink swapped in meanwhile cannot move a read or a write outside (docs/security.md).
 * Reads and writes have byte limits; writes are atomic (temp file + rename) and durable (file
 * and folder fsynced before they return); writes of one file are serialised within the
 * process and, across processes, by a lock file. Every file-system error leaves as a
 * `CtxloomError` naming the path as given, never an absolute server path.
 */
export interface Sandbox {
  /** The root folder as given. */
  readonly root: string;
  /** The real absolute path of `path`; `forWrite` allows a missing file in an existing tree. */
  resolve(path: string, options?: { forWrite?: boolean }): Promise<string>;
  /**
   * Where a write of `path` would land, relative to the real root (`/`-separated, symlinks
   * resolved): `sub/link-up/messages.json` → `messages.json` when `link-up` points to the root.
   * Compare this, not the path as given, against protected names.
   */
  canonical(path: string): Promise<string>;
  /**
   * Where the entry `path` names sits, relative to the real root (`/`-separated): its parent
   * folders' symlinks resolved, its last segment not followed, so a symlink names the link
   * itself. What a rename or a delete acts on; compare it, too, against protected names.
   */
  locate(path: string): Promise<string>;
  /** UTF-8 text of a file; throws `not-found`, `too-large`, `parse-error` (bad UTF-8), `unsupported` (binary). */
  readText(path: string): Promise<string>;
  /** True when `path` names an existing file or folder inside the sandbox. */
  exists(path: string): Promise<boolean>;
  /** Size in bytes and modification time of a file or folder; `undefined` when missing. */
  stat(path: string): Promise<{ kind: 'file' | 'directory'; size: number; mtimeMs: number } | undefined>;
  /**
   * Writes `text` atomically, creating parent folders. Throws `too-large`, `path-escape`, and
   * `invalid-argument` for text UTF-8 cannot store (a lone surrogate) or a NUL (U+0000).
   */
  writeText(path: string, text: string): Promise<void>;
  /**
   * Creates the missing folders that would hold `path` (not `path` itself), as a write does:
   * one checked folder at a time, never through a symlink. Throws `invalid-argument` naming
   * `path` when a parent is a file, `path-escape` when one leads outside.
   */
  makeParents(path: string): Promise<void>;
  /**
   * Reads (or `undefined` when missing), transforms and writes back, serialised per file;
   * returns the text written. The transform returns the new text, or a {@link TextEdit} that
   * keeps the start of the current text and appends to it — only the appended text is encoded.
   */
  update(
    path: string,
    transform: (current: string | undefined) => string | TextEdit | Promise<string | TextEdit>,
  ): Promise<string>;
  /**
   * Runs `work` holding the write lock of `path` — in this process and, by its lock file, across
   * processes (waiting up to `lockTimeoutMs`, then `conflict`) — without reading or writing
   * `path` itself: a lock for work that spans several files.
   */
  hold<T>(path: string, work: () => Promise<T>): Promise<T>;
  /** The sandbox that holds `path` for reading: this one, or the global fallback. */
  owner(path: string): Promise<Sandbox>;
  /** Files and folders under `dir` (default the root), sorted by path; temp files hidden. */
  list(dir?: string, options?: ListOptions): Promise<SandboxEntry[]>;
}

/**
 * Creates a {@link Sandbox} rooted at `options.root`.
 * @example
 * const box = createSandbox({ root: 'examples/notebook/s1' });
 * await box.readText('guidance.md');
 * await box.readText('../s2/messages.json'); // throws CtxloomError('path-escape')
 */
export function createSandbox(options: SandboxOptions): Sandbox {
  const maxReadBytes = options.maxReadBytes ?? DEFAULT_MAX_READ_BYTES;
  const maxWriteBytes = options.maxWriteBytes ?? DEFAULT_MAX_WRITE_BYTES;
  const lockTimeoutMs = Math.max(0, options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS);
  // NaN compares false with every wait: a live lock would be waited for for good.
  if (Number.isNaN(lockTimeoutMs)) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: `lockTimeoutMs must be a number of milliseconds, got ${String(options.lockTimeoutMs)}`,
      path: 'lockTimeoutMs',
    });
  }
  const validate = { maxPathLength: options.maxPathLength ?? 1024 };
  let rootReal: Promise<string> | undefined;
  const getRoot = (): Promise<string> => {
    rootReal ??= realpath(options.root).then(
      async (real) => {
        if (options.cleanStaleFiles !== false) await removeStaleFiles(real).catch(() => 0);
        return real;
      },
      (cause: unknown) => {
        rootReal = undefined;
        // Named by its folder's name (a session's id), never by its absolute path: the error
        // reaches HTTP and MCP clients.
        throw new CtxloomError({
          code: 'not-found',
          message: `the folder "${basename(options.root)}" does not exist (deleted or moved)`,
          cause,
        });
      },
    );
    return rootReal;
  };

  /** Runs `task`, mapping any raw error to a typed one naming `path`. */
  const guarded = async <T>(path: string, task: () => Promise<T>): Promise<T> => {
    try {
      return await task();
    } catch (error) {
      throw mapFsError(error, typeof path === 'string' ? path : String(path));
    }
  };

  const resolveLocal = async (path: string, forWrite: boolean): Promise<string> => {
    const segments = validateRelativePath(path, validate);
    const root = await getRoot();
    const candidate = join(root, ...segments);
    try {
      const real = await realpath(candidate);
      if (!isInside(root, real)) throw refuse(path, 'it resolves outside the sandbox through a symlink');
      return real;
    } catch (error) {
      if (CtxloomError.is(error) || !isMissing(error)) throw error;
    }
    if (await isLink(candidate)) throw refuse(path, 'it is a dangling symlink');
    if (!forWrite) throw new CtxloomError({ code: 'not-found', message: 'no such file', file: path });
    // Find the deepest existing ancestor; it must be inside the root after realpath.
    for (let depth = segments.length - 1; depth >= 0; depth--) {
      const ancestor = join(root, ...segments.slice(0, depth));
      try {
        const real = await realpath(ancestor);
        if (!isInside(root, real)) throw refuse(path, 'a parent folder resolves outside the sandbox');
        return join(real, ...segments.slice(depth));
      } catch (error) {
        if (CtxloomError.is(error) || !isMissing(error)) throw error;
        if (await isLink(ancestor)) throw refuse(path, 'a parent folder is a dangling symlink');
      }
    }
    return candidate;
  };

  /** Root-relative segments of where a write of `path` lands (never empty). */
  const writeSegments = async (path: string): Promise<string[]> => {
    const root = await getRoot();
    const target = await resolveLocal(path, true);
    const segments = relative(root, target)
      .split(sep)
      .filter((segment) => segment !== '');
    if (segments.length === 0) {
      throw new CtxloomError({
        code: 'invalid-argument',
        message: 'cannot write to the root folder',
        file: path,
      });
    }
    return segments;
  };

  /** Opens the checked parent of `path`'s target and runs `task` with it under the file's locks. */
  const withTarget = async <T>(
    path: string,
    task: (dir: VerifiedDir, name: string) => Promise<T>,
  ): Promise<T> => {
    const segments = await writeSegments(path);
    const root = await getRoot();
    return runSerialised(join(root, ...segments), async () => {
      const dir = await openVerifiedDir(root, segments.slice(0, -1), { create: true, shown: path });
      try {
        const name = segments.at(-1) as string;
        return await withFileLock(dir, name, { timeoutMs: lockTimeoutMs, shown: path }, () =>
          task(dir, name),
        );
      } finally {
        await dir.close();
      }
    });
  };

  /** Reads an opened file: checks it is inside the root, a file, under the limit; decodes it. */
  const readHandle = async (handle: FileHandle, real: string, path: string): Promise<ReadFile> => {
    const actual = await realPathOf(handle, real);
    if (!isInside(await getRoot(), actual))
      throw refuse(path, 'it resolves outside the sandbox (changed while opening)');
    const info = await handle.stat();
    assertRegularFile(info, path);
    if (info.size > maxReadBytes) {
      throw new CtxloomError({
        code: 'too-large',
        message: `file is ${info.size} bytes; the read limit is ${maxReadBytes}`,
        file: path,
      });
    }
    const bytes = await handle.readFile();
    const known = fileTexts.get(actual, bytes);
    if (known !== undefined) return { text: known, bytes };
    const text = decodeText(bytes, path);
    fileTexts.set(actual, bytes, text);
    return { text, bytes };
  };

  const readLocal = async (path: string): Promise<string> => {
    const real = await resolveLocal(path, false);
    const handle = await open(real, READ_FLAGS).catch((error: unknown) => {
      if (fsErrorCode(error) === 'ELOOP') throw refuse(path, 'it became a symlink while opening');
      throw error;
    });
    try {
      return (await readHandle(handle, real, path)).text;
    } finally {
      await handle.close();
    }
  };

  /** The current text and bytes of `name` in `dir`, or `undefined` when it does not exist. */
  const readAt = async (dir: VerifiedDir, name: string, path: string): Promise<ReadFile | undefined> => {
    let handle: FileHandle;
    try {
      handle = await open(dir.at(name), READ_FLAGS);
    } catch (error) {
      if (fsErrorCode(error) === 'ENOENT') return undefined;
      if (fsErrorCode(error) === 'ELOOP') throw refuse(path, 'it became a symlink during the write');
      throw error;
    }
    try {
      return await readHandle(handle, join(dir.real, name), path);
    } finally {
      await handle.close();
    }
  };

  /** Writes `text` to `name` in `dir`: temp file in the same folder, fsync, rename, fsync the folder. */
  const writeAt = async (
    dir: VerifiedDir,
    name: string,
    text: string,
    path: string,
    encoded: Uint8Array = Buffer.from(text, 'utf8'),
  ): Promise<void> => {
    assertStorableText(text, path);
    const bytes = encoded.byteLength;
    if (bytes > maxWriteBytes) {
      throw new CtxloomError({
        code: 'too-large',
        message: `write of ${bytes} bytes exceeds the limit of ${maxWriteBytes}`,
        file: path,
      });
    }
    const temp = tempNameFor(randomBytes(6).toString('hex'));
    try {
      const handle = await open(
        dir.at(temp),
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
        0o644,
      );
      try {
        await handle.writeFile(encoded);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(dir.at(temp), dir.at(name));
      await dir.sync();
      // A BOM is dropped when read back: only text without one reads back as itself.
      if (text.charCodeAt(0) !== 0xfeff) fileTexts.set(join(dir.real, name), encoded, text);
    } catch (error) {
      await unlink(dir.at(temp)).catch(() => undefined);
      throw error;
    }
  };

  const globalFor = async (path: string): Promise<Sandbox | undefined> => {
    const globals = options.globals;
    if (globals === undefined) return undefined;
    const segments = validateRelativePath(path, validate);
    if (segments.length !== 1 || !globals.files.includes(segments[0] as string)) return undefined;
    if (await localExists(path)) return undefined;
    return globals.sandbox;
  };

  const localExists = async (path: string): Promise<boolean> => {
    try {
      await resolveLocal(path, false);
      return true;
    } catch (error) {
      if (CtxloomError.is(error, 'not-found')) return false;
      throw error;
    }
  };

  const sandbox: Sandbox = {
    root: options.root,
    resolve: (path, resolveOptions = {}) =>
      guarded(path, async () => {
        const global = resolveOptions.forWrite ? undefined : await globalFor(path);
        if (global !== undefined) return global.resolve(path);
        return resolveLocal(path, resolveOptions.forWrite ?? false);
      }),
    canonical: (path) => guarded(path, async () => (await writeSegments(path)).join('/')),
    locate: (path) =>
      guarded(path, async () => {
        const segments = validateRelativePath(path, validate);
        const name = segments.at(-1);
        if (name === undefined) {
          throw new CtxloomError({
            code: 'invalid-argument',
            message: 'the root folder is not an entry',
            file: path,
          });
        }
        const root = await getRoot();
        const parent = await resolveLocal(segments.slice(0, -1).join('/'), true);
        return [...relative(root, parent).split(sep), name].filter((segment) => segment !== '').join('/');
      }),
    readText: (path) =>
      guarded(path, async () => {
        const global = await globalFor(path);
        if (global !== undefined) return global.readText(path);
        return readLocal(path);
      }),
    async exists(path) {
      return (await sandbox.stat(path)) !== undefined;
    },
    stat: (path) =>
      guarded(path, async () => {
        let real: string;
        try {
          real = await sandbox.resolve(path);
        } catch (error) {
          if (CtxloomError.is(error, 'not-found')) return undefined;
          throw error;
        }
        const info = await stat(real);
        return {
          kind: info.isDirectory() ? 'directory' : 'file',
          size: info.size,
          mtimeMs: info.mtimeMs,
        } as const;
      }),
    writeText: (path, text) =>
      guarded(path, () => withTarget(path, (dir, name) => writeAt(dir, name, text, path))),
    makeParents: (path) =>
      guarded(path, async () => {
        const segments = await writeSegments(path);
        const dir = await openVerifiedDir(await getRoot(), segments.slice(0, -1), {
          create: true,
          shown: path,
        });
        await dir.close();
      }),
    update: (path, transform) =>
      guarded(path, () =>
        withTarget(path, async (dir, name) => {
          const current = await readAt(dir, name, path);
          const next = await transform(current?.text);
          if (typeof next === 'string') {
            await writeAt(dir, name, next, path);
            return next;
          }
          const edited = applyEdit(current, next, path);
          await writeAt(dir, name, edited.text, path, edited.encoded);
          return edited.text;
        }),
      ),
    hold: (path, work) => guarded(path, () => withTarget(path, () => work())),
    owner: (path) => guarded(path, async () => (await globalFor(path)) ?? sandbox),
    list: (dir = '', listOptions = {}) =>
      guarded(dir, async () => {
        const root = await getRoot();
        const start = await resolveLocal(dir, false);
        if (!(await stat(start)).isDirectory()) {
          throw new CtxloomError({ code: 'invalid-argument', message: 'is a file, not a folder', file: dir });
        }
        return listFolder(root, start, listOptions);
      }),
  };
  return sandbox;
}

async function isLink(path: string): Promise<boolean> {
  try {
    return (await lstat(path)).isSymbolicLink();
  } catch {
    return false;
  }
}
