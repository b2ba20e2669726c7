import { readdir, realpath, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import type { ListOptions, SandboxEntry } from './create-sandbox.ts';
import { LOCK_SUFFIX, TEMP_SUFFIX } from './file-lock.ts';
import { isInside } from './verified-dir.ts';

/**
 * The entries of the folder `start` inside the sandbox's real `root` (`Sandbox.list`): sorted
 * by name at each level, paths from `root` with `/`, lock and temp files left out, symlinks
 * listed when they lead inside `root` and never descended, at most `maxEntries` (default 1000).
 */
export async function listFolder(root: string, start: string, options: ListOptions): Promise<SandboxEntry[]> {
  const maxEntries = options.maxEntries ?? 1000;
  const entries: SandboxEntry[] = [];
  const walk = async (folder: string): Promise<void> => {
    const children = await readdir(folder, { withFileTypes: true });
    children.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const child of children) {
      if (entries.length >= maxEntries) return;
      if (child.name.endsWith(TEMP_SUFFIX) || child.name.endsWith(LOCK_SUFFIX)) continue;
      const full = join(folder, child.name);
      let real = full;
      if (child.isSymbolicLink()) {
        real = await realpath(full).catch(() => '');
        if (real === '' || !isInside(root, real)) continue;
      }
      const info = await stat(real).catch(() => undefined);
      if (info === undefined) continue; // removed while listing
      const path = relative(root, full).split(sep).join('/');
      if (info.isDirectory()) {
        entries.push({ path, kind: 'directory', size: 0 });
        if (options.recursive && !child.isSymbolicLink() && options.skipInside?.(path) !== true)
          await walk(full);
      } else if (info.isFile()) {
        entries.push({ path, kind: 'file', size: info.size });
      }
    }
  };
  await walk(start);
  return entries;
}
