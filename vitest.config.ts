import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (area: string) => fileURLToPath(new URL(`./src/${area}/index.ts`, import.meta.url));

/**
 * Tests that need a PostgreSQL server, a browser, or minutes of child processes. They form the
 * `integration` project, whose global setup finds or starts the services; everything else is
 * `unit` (`npm run test:unit`, no services). `npm test` runs both.
 */
const INTEGRATION = [
  'test/**/*.test.ts',
  'src/runtime/checkpoint/sql-checkpoint-saver.test.ts',
  'src/runtime/checkpoint/postgres-saver.validation.test.ts',
];
const ALL = ['src/**/*.test.ts', 'test/**/*.test.ts', 'examples/**/*.test.ts', 'bench/**/*.test.ts'];

export default defineConfig({
  resolve: {
    alias: [
      { find: /^ctxloom$/, replacement: src('core') },
      {
        find: /^ctxloom\/([a-z-]+)$/,
        replacement: fileURLToPath(new URL('./src/$1/index.ts', import.meta.url)),
      },
    ],
  },
  test: {
    typecheck: { enabled: false },
    // Timeouts only catch hangs: on a shared 2-core machine under load a 5 MB parse can take
    // 35 s, and a condition polled with expect.poll can need seconds to become true.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    expect: { poll: { timeout: 30_000 } },
    pool: 'forks',
    projects: [
      { extends: true, test: { name: 'unit', include: ALL, exclude: INTEGRATION } },
      {
        extends: true,
        test: {
          name: 'integration',
          include: INTEGRATION,
          globalSetup: ['test/support/services.global-setup.ts'],
        },
      },
    ],
  },
});
