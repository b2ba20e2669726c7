import type { DatabaseSync } from 'node:sqlite';
import { CtxloomError } from '../core/index.ts';

/**
 * Records and checks the format version of one ctxloom component (`memory`, `shared-pool`)
 * in the table `ctxloom_formats (component, version)`, so several components can share one
 * SQLite file. A newer version than `version` is refused with `storage-error`; an absent row
 * is created.
 */
export function ensureFormat(
  database: DatabaseSync,
  component: string,
  version: number,
  path?: string,
): void {
  try {
    database.exec(
      'CREATE TABLE IF NOT EXISTS ctxloom_formats (component TEXT PRIMARY KEY, version INTEGER NOT NULL)',
    );
    const row = database.prepare('SELECT version FROM ctxloom_formats WHERE component = ?').get(component) as
      | { version: number }
      | undefined;
    if (row === undefined) {
      database
        .prepare('INSERT INTO ctxloom_formats (component, version) VALUES (?, ?)')
        .run(component, version);
      return;
    }
    if (row.version > version) {
      throw new CtxloomError({
        code: 'storage-error',
        message: `${component} format ${row.version} is newer than this ctxloom supports (${version})`,
        ...(path === undefined ? {} : { file: path }),
      });
    }
  } catch (error) {
    if (CtxloomError.is(error)) throw error;
    throw new CtxloomError({
      code: 'storage-error',
      message: `could not check the ${component} format`,
      cause: error,
      ...(path === undefined ? {} : { file: path }),
    });
  }
}
