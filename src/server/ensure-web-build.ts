import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Folder the web UI is built into (`dist/web` of the package). */
export const WEB_ROOT = `${PACKAGE_ROOT}dist/web`;
const WEB_SOURCE = `${PACKAGE_ROOT}web`;

/**
 * Returns {@link WEB_ROOT}, building the web UI first (Vite, `web/vite.config.ts`) when the
 * build is missing or older than a file under `web/` — `npm ci` builds it through `prepare`;
 * this covers a checkout without it and edited sources. Returns `undefined` when neither a
 * build nor the sources (or Vite) are available; the API still runs.
 */
export async function ensureWebBuild(log: (line: string) => void): Promise<string | undefined> {
  const index = `${WEB_ROOT}/index.html`;
  const config = `${WEB_SOURCE}/vite.config.ts`;
  const built = existsSync(index) ? statSync(index).mtimeMs : undefined;
  if (!existsSync(config)) return built === undefined ? undefined : WEB_ROOT;
  if (built !== undefined && newestMtime(WEB_SOURCE) <= built) return WEB_ROOT;
  log(
    built === undefined
      ? 'building the web UI (dist/web is missing)…\n'
      : 'rebuilding the web UI (web/ changed)…\n',
  );
  // Vite builds for the process's NODE_ENV when one is set: under a test runner (`test`) or a
  // shell's `development` that bundled React's development build, several times slower on a
  // long history, and `serve` went on serving it. The UI is always built for production.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    const vite = await import('vite');
    await vite.build({ configFile: config, logLevel: 'warn' });
  } catch (error) {
    log(`could not build the web UI: ${error instanceof Error ? error.message : String(error)}\n`);
    return built === undefined ? undefined : WEB_ROOT;
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
  }
  return existsSync(index) ? WEB_ROOT : undefined;
}

/** Latest modification time of the files under `folder`, in ms. */
function newestMtime(folder: string): number {
  let newest = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}
