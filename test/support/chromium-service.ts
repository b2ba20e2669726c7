import { existsSync } from 'node:fs';
import type { ServiceMode } from './postgres-service.ts';

/** A Chromium binary for the browser tests and where it came from. */
export interface ChromiumService {
  readonly executablePath: string;
  readonly source: 'system' | 'npm';
}

/** Where a system Chromium is looked for when `CHROMIUM_PATH` is not set (Debian's `chromium`). */
export const SYSTEM_CHROMIUM_PATHS = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

/**
 * The Chromium for this test run. `system`: `CHROMIUM_PATH` or a Debian/Ubuntu install, else
 * an error; `npm`: the binary shipped in `@sparticuz/chromium` (unpacked once into the temp
 * directory); `auto`: the system one when it exists, else npm's.
 */
export async function resolveChromium({ mode }: { mode: ServiceMode }): Promise<ChromiumService> {
  const configured = process.env.CHROMIUM_PATH;
  const candidates = configured ? [configured] : SYSTEM_CHROMIUM_PATHS;
  const system = candidates.find((path) => existsSync(path));
  if (mode !== 'npm' && system !== undefined) return { executablePath: system, source: 'system' };
  if (mode === 'system') {
    throw new Error(
      `CTXLOOM_TEST_SERVICES=system but no Chromium at ${candidates.join(', ')} (set CHROMIUM_PATH)`,
    );
  }
  const { default: chromium } = await import('@sparticuz/chromium');
  return { executablePath: await chromium.executablePath(), source: 'npm' };
}
