/**
 * Oldest Node.js ctxloom runs on (`engines.node` in package.json says the same): the first
 * release with `node:sqlite` unflagged and every other API the package uses, measured by
 * `scripts/check-packed-install.mjs --node <version>` against the installed tarball.
 */
export const MIN_NODE = '22.13.0';

/** True when `version` (`v22.13.0` or `22.13.0`) is at least {@link MIN_NODE}. */
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
