import { parseSessionStoreSpec, type SessionStoreSpec } from '../session/open-session-store.ts';
import { usageError } from './usage-error.ts';

/** Parses `--store` (see `parseSessionStoreSpec`); a bad spec is a usage error naming `store`. */
export function parseStoreOption(spec: string | undefined, cwd: string): SessionStoreSpec {
  try {
    return parseSessionStoreSpec(spec, { cwd });
  } catch (error) {
    // The message already ends in "(at store)": naming `store` again would say it twice.
    throw usageError(`--store: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** One line naming where sessions are kept (`ctxloom serve` prints it); never a password. */
export function describeStore(spec: SessionStoreSpec): string {
  switch (spec.kind) {
    case 'files':
      return 'files (the workspace folder)';
    case 'sqlite':
      return `sqlite ${spec.path}`;
    case 'postgres':
      return `postgres schema ${spec.schema}`;
  }
}
