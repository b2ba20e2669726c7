import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Folder the web UI is built into (`dist/web` of the package). */
export const WEB_ROOT = `${PACKAGE_ROOT}dist/web`;

/**
 * Returns {@link WEB_ROOT}, building the web UI first (Vite, `web/vite.config.ts`) when it is
 * missing — `npm ci` builds it through `prepare`, this covers a checkout without it. Returns
 * `undefined` when neither a build nor the sources (or Vite) are available; the API still runs.
 */
export async function ensureWebBuild(log: (line: string) => void): Promise<string | undefined> {
  if (existsSync(`${WEB_ROOT}/index.html`)) return WEB_ROOT;
  const config = `${PACKAGE_ROOT}web/vite.config.ts`;
  if (!existsSync(config)) return undefined;
  log('building the web UI (dist/web is missing)…\n');
  try {
    const vite = await import('vite');
    await vite.build({ configFile: config, logLevel: 'warn' });
  } catch (error) {
    log(`could not build the web UI: ${error instanceof Error ? error.message : String(error)}\n`);
    return undefined;
  }
  return existsSync(`${WEB_ROOT}/index.html`) ? WEB_ROOT : undefined;
}
