// The older Node.js the tests in this folder run: `CTXLOOM_OLD_NODE`, else the system's
// (`/usr/bin/node`, Debian's Node 20 on this machine and in CI).
import { spawnSync } from 'node:child_process';
import { describe } from 'vitest';
import { isSupportedNode } from '../../src/core/node-version.ts';

/** Path of the older Node.js. */
export const OLD_NODE = process.env.CTXLOOM_OLD_NODE ?? '/usr/bin/node';

/** Its version (`v20.20.2`), or `undefined` when there is none at {@link OLD_NODE}. */
export const OLD_VERSION = ((): string | undefined => {
  const result = spawnSync(OLD_NODE, ['--version'], { encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : undefined;
})();

/** True when {@link OLD_NODE} is a Node.js older than `engines.node`. */
export const IS_OLD = OLD_VERSION !== undefined && !isSupportedNode(OLD_VERSION);

/**
 * `describe`, or `describe.skip` where no older Node is installed — except in CI, whose machine
 * has Debian's Node 20: there a suite runs and its first check fails rather than pass unrun.
 */
export const describeOnOldNode = IS_OLD || process.env.CI === 'true' ? describe : describe.skip;
