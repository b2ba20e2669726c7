import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (area: string) => fileURLToPath(new URL(`./src/${area}/index.ts`, import.meta.url));

/**
 * Tests that need a PostgreSQL server, a browser, or minutes of child processes. They form the
 * `integration` project, whose global setup finds or starts the services; everything else is
 * `unit` and `unit-isolated` (`npm run test:unit`, no services). `npm test` runs all three.
 */
const INTEGRATION = [
  // Every folder of test/ but ui/ (the notebook's pure functions, no services).
  'test/!(ui)/**/*.test.ts',
  'src/runtime/checkpoint/sql-checkpoint-saver.test.ts',
  'src/runtime/checkpoint/thread-keys.test.ts',
  'src/runtime/checkpoint/postgres-saver.validation.test.ts',
  'examples/state/checkpoints.test.ts',
  'examples/readme/etl-commands.test.ts',
];
/**
 * Unit test files that `vi.mock` a module the rest of the suite also imports: they need a
 * module graph of their own, so they run in the `unit-isolated` project.
 */
const ISOLATED = ['src/workspace/sandbox/write-race.test.ts'];
const ALL = [
  'src/**/*.test.ts',
  'test/**/*.test.ts',
  'examples/**/*.test.ts',
  'bench/**/*.test.ts',
  'scripts/**/*.test.ts',
];

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
      // Files share a worker's module cache (no per-file isolation): re-importing the module
      // graph (and reloading the o200k vocabulary) for each of ~140 files took three quarters
      // of the project's CPU time (212 → 53 CPU-s). A test that needs fresh module state uses
      // vi.resetModules(); one that mocks a shared module goes in ISOLATED.
      {
        extends: true,
        test: { name: 'unit', include: ALL, exclude: [...INTEGRATION, ...ISOLATED], isolate: false },
      },
      { extends: true, test: { name: 'unit-isolated', include: ISOLATED } },
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
