import { createRequire } from 'node:module';
import { CtxloomError } from '../core/index.ts';
import { MIN_NODE } from '../core/node-version.ts';

type NodeSqlite = typeof import('node:sqlite');

const require = createRequire(import.meta.url);
let loaded: NodeSqlite | undefined;

/**
 * Node's built-in `node:sqlite`, loaded when a SQLite store opens rather than when a module
 * imports it: every subpath then imports on a Node.js without it (Node 20, 22 before 22.13
 * without `--experimental-sqlite`), and opening a SQLite store there is an `unsupported`
 * {@link CtxloomError} naming the release ctxloom needs, not Node's `ERR_UNKNOWN_BUILTIN_MODULE`.
 * @param feature what needs it, for the message (`'SqliteSaver'`, `'the memory store'`).
 * @example const { DatabaseSync } = requireNodeSqlite({ feature: 'the memory store' });
 */
export function requireNodeSqlite({ feature }: { feature: string }): NodeSqlite {
  if (loaded !== undefined) return loaded;
  try {
    loaded = require('node:sqlite') as NodeSqlite;
    return loaded;
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code !== 'ERR_UNKNOWN_BUILTIN_MODULE') throw error;
    throw new CtxloomError({
      code: 'unsupported',
      message: `${feature} needs Node.js >= ${MIN_NODE} (its built-in node:sqlite); this is Node.js ${process.versions.node}`,
      cause: error,
      path: 'node:sqlite',
    });
  }
}
