import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (area: string) => fileURLToPath(new URL(`./src/${area}/index.ts`, import.meta.url));

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
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'examples/**/*.test.ts', 'bench/**/*.test.ts'],
    typecheck: { enabled: false },
    testTimeout: 30_000,
    pool: 'forks',
  },
});
