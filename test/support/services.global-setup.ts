import type { TestProject } from 'vitest/node';
import { resolveChromium } from './chromium-service.ts';
import { redact, resolvePostgres, type ServiceMode } from './postgres-service.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** PostgreSQL URL for tests that need a server (schemas per test file). */
    pgUrl: string;
    /** Chromium executable for the browser tests. */
    chromiumPath: string;
  }
}

/**
 * Vitest global setup of the `services` project: finds or starts the PostgreSQL and
 * Chromium the service tests need and hands them over with `inject('pgUrl')` /
 * `inject('chromiumPath')`. `CTXLOOM_TEST_SERVICES` = `auto` (default: the machine's when
 * present, else the npm-shipped ones), `system` or `npm`.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const mode = (process.env.CTXLOOM_TEST_SERVICES || 'auto') as ServiceMode;
  if (!['auto', 'system', 'npm'].includes(mode)) {
    throw new Error(`CTXLOOM_TEST_SERVICES must be auto, system or npm, not "${mode}"`);
  }
  const [postgres, chromium] = await Promise.all([resolvePostgres({ mode }), resolveChromium({ mode })]);
  process.stderr.write(
    `test services: PostgreSQL ${postgres.source} (${redact(postgres.url)}), Chromium ${chromium.source} (${chromium.executablePath})\n`,
  );
  project.provide('pgUrl', postgres.url);
  project.provide('chromiumPath', chromium.executablePath);
  return () => postgres.stop();
}
