import { randomBytes } from 'node:crypto';
import { lstat, mkdir, readdir, readFile, realpath, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';
import { CtxloomError } from '../../core/index.ts';
import { decodeText } from './decode-text.ts';
import { runSerialised } from './serial-queue.ts';
import { refuse, validateRelativePath } from './validate-path.ts';

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
}

/**
 * The only way ctxloom touches files. Every path is checked lexically
 * ({@link validateRelativePath}), then resolved with `realpath` and refused when it lands
 * outside the root (a symlink that leaves). Reads and writes have byte limits, writes are
 * atomic (temp file + rename) and {@link Sandbox.update} serialises read-modify-write cycles
 * per file within the process.
 */
export interface Sandbox {
  /** The root folder as given. */
  readonly root: string;
  /** The real absolute path of `path`; `forWrite` allows a missing file in an existing tree. */
  resolve(path: string, options?: { forWrite?: boolean }): Promise<string>;
  /** UTF-8 text of a file; throws `not-found`, `too-large`, `parse-error` (bad UTF-8), `unsupported` (binary). */
  readText(path: string): Promise<string>;
  /** True when `path` names an existing file or folder inside the sandbox. */
  exists(path: string): Promise<boolean>;
  /** Size in bytes and modification time of a file or folder; `undefined` when missing. */
  stat(path: string): Promise<{ kind: 'file' | 'directory'; size: number; mtimeMs: number } | undefined>;
  /** Writes `text` atomically, creating parent folders. Throws `too-large`, `path-escape`. */
  writeText(path: string, text: string): Promise<void>;
  /** Reads (or `undefined` when missing), transforms and writes back, serialised per file. */
  update(path: string, transform: (current: string | undefined) => string | Promise<string>): Promise<string>;
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
  const validate = { maxPathLength: options.maxPathLength ?? 1024 };
  let rootReal: Promise<string> | undefined;
  const getRoot = (): Promise<string> => {
    rootReal ??= realpath(options.root).catch((cause: unknown) => {
      rootReal = undefined;
      throw new CtxloomError({
        code: 'not-found',
        message: 'sandbox root does not exist',
        file: options.root,
        cause,
      });
    });
    return rootReal;
  };

  const inside = (root: string, real: string): boolean => real === root || real.startsWith(root + sep);

  const resolveLocal = async (path: string, forWrite: boolean): Promise<string> => {
    const segments = validateRelativePath(path, validate);
    const root = await getRoot();
    const candidate = join(root, ...segments);
    try {
      const real = await realpath(candidate);
      if (!inside(root, real)) throw refuse(path, 'it resolves outside the sandbox through a symlink');
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
        if (!inside(root, real)) throw refuse(path, 'a parent folder resolves outside the sandbox');
        return join(real, ...segments.slice(depth));
      } catch (error) {
        if (CtxloomError.is(error) || !isMissing(error)) throw error;
        if (await isLink(ancestor)) throw refuse(path, 'a parent folder is a dangling symlink');
      }
    }
    return candidate;
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
    async resolve(path, resolveOptions = {}) {
      const global = resolveOptions.forWrite ? undefined : await globalFor(path);
      if (global !== undefined) return global.resolve(path);
      return resolveLocal(path, resolveOptions.forWrite ?? false);
    },
    async readText(path) {
      const global = await globalFor(path);
      if (global !== undefined) return global.readText(path);
      const real = await resolveLocal(path, false);
      const info = await stat(real);
      if (info.isDirectory()) {
        throw new CtxloomError({ code: 'invalid-argument', message: 'is a folder, not a file', file: path });
      }
      if (info.size > maxReadBytes) {
        throw new CtxloomError({
          code: 'too-large',
          message: `file is ${info.size} bytes; the read limit is ${maxReadBytes}`,
          file: path,
        });
      }
      return decodeText(await readFile(real), path);
    },
    async exists(path) {
      return (await sandbox.stat(path)) !== undefined;
    },
    async stat(path) {
      let real: string;
      try {
        real = await sandbox.resolve(path);
      } catch (error) {
        if (CtxloomError.is(error, 'not-found')) return undefined;
        throw error;
      }
      const info = await stat(real);
      return { kind: info.isDirectory() ? 'directory' : 'file', size: info.size, mtimeMs: info.mtimeMs };
    },
    async writeText(path, text) {
      const bytes = Buffer.byteLength(text, 'utf8');
      if (bytes > maxWriteBytes) {
        throw new CtxloomError({
          code: 'too-large',
          message: `write of ${bytes} bytes exceeds the limit of ${maxWriteBytes}`,
          file: path,
        });
      }
      const target = await resolveLocal(path, true);
      if (validateRelativePath(path, validate).length === 0) {
        throw new CtxloomError({
          code: 'invalid-argument',
          message: 'cannot write to the root folder',
          file: path,
        });
      }
      await mkdir(dirname(target), { recursive: true });
      // Re-check after mkdir: a concurrent symlink swap of a parent must not redirect the write.
      const parent = await realpath(dirname(target));
      if (!inside(await getRoot(), parent))
        throw refuse(path, 'a parent folder resolves outside the sandbox');
      const temp = join(parent, `.${randomBytes(6).toString('hex')}.ctxloom-tmp`);
      try {
        await writeFile(temp, text, { flag: 'wx' });
        await rename(temp, join(parent, basename(target)));
      } catch (error) {
        await unlink(temp).catch(() => undefined);
        throw error;
      }
    },
    async update(path, transform) {
      const key = await resolveLocal(path, true);
      return runSerialised(key, async () => {
        const current = (await localExists(path)) ? await sandbox.readText(path) : undefined;
        const next = await transform(current);
        await sandbox.writeText(path, next);
        return next;
      });
    },
    async owner(path) {
      return (await globalFor(path)) ?? sandbox;
    },
    async list(dir = '', listOptions = {}) {
      const maxEntries = listOptions.maxEntries ?? 1000;
      const root = await getRoot();
      const start = await resolveLocal(dir, false);
      if (!(await stat(start)).isDirectory()) {
        throw new CtxloomError({ code: 'invalid-argument', message: 'is a file, not a folder', file: dir });
      }
      const entries: SandboxEntry[] = [];
      const walk = async (folder: string): Promise<void> => {
        const children = await readdir(folder, { withFileTypes: true });
        children.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
        for (const child of children) {
          if (entries.length >= maxEntries) return;
          if (child.name.endsWith('.ctxloom-tmp')) continue;
          const full = join(folder, child.name);
          let real = full;
          if (child.isSymbolicLink()) {
            real = await realpath(full).catch(() => '');
            if (real === '' || !inside(root, real)) continue;
          }
          const info = await stat(real);
          const path = relative(root, full).split(sep).join('/');
          if (info.isDirectory()) {
            entries.push({ path, kind: 'directory', size: 0 });
            if (listOptions.recursive && !child.isSymbolicLink()) await walk(full);
          } else if (info.isFile()) {
            entries.push({ path, kind: 'file', size: info.size });
          }
        }
      };
      await walk(start);
      return entries;
    },
  };
  return sandbox;
}

function isMissing(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

async function isLink(path: string): Promise<boolean> {
  try {
    return (await lstat(path)).isSymbolicLink();
  } catch {
    return false;
  }
}
