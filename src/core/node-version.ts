/**
 * Oldest Node.js ctxloom runs on (`engines.node` in package.json says the same). Measured
 * against the installed tarball (`node scripts/check-packed-install.mjs --node <version>`):
 * 22.12 has no `node:sqlite` without a flag; 22.13–22.15 have it but lack
 * `DatabaseSync#isTransaction`, which the SQLite checkpoint driver needs to roll back a
 * failed write; 22.16 is the first release with every API the package uses. Every subpath
 * imports on older releases too (Node 20 is tested): `node:sqlite` loads when a SQLite store
 * opens, and is an `unsupported` error naming this version where it is missing.
 */
export const MIN_NODE = '22.16.0';

/** True when `version` (`v22.16.0` or `22.16.0`) is at least {@link MIN_NODE}. */
export function isSupportedNode(version: string): boolean {
  const have = version.replace(/^v/u, '').split('.').map(Number);
  const need = MIN_NODE.split('.').map(Number);
  for (let index = 0; index < need.length; index += 1) {
    const a = have[index] ?? 0;
    const b = need[index] ?? 0;
    if (a !== b) return a > b;
  }
  return true;
}
