import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { precompress } from './precompress.ts';

/** Builds the notebook UI into `dist/web`, which `ctxloom serve` serves at `/`. */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  plugins: [react(), precompress()],
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    chunkSizeWarningLimit: 1500,
    rollupOptions: {
      output: {
        // A chunk of one package (the editor's languages, the parser they share) is named
        // after the package, not after its `dist` folder.
        chunkFileNames: (chunk) => `assets/${packageOf(chunk) ?? '[name]'}-[hash].js`,
      },
    },
  },
  server: { proxy: { '/api': 'http://127.0.0.1:4317' } },
});

/** The package a chunk starts from, or holds all of its modules from; `undefined` for app code. */
function packageOf(chunk: {
  facadeModuleId: string | null;
  moduleIds: readonly string[];
}): string | undefined {
  const name = (id: string) => /node_modules\/(?:@[^/]+\/)?([^/]+)\//u.exec(id)?.[1];
  if (chunk.facadeModuleId !== null) return name(chunk.facadeModuleId);
  const names = new Set(chunk.moduleIds.map(name));
  return names.size === 1 ? [...names][0] : undefined;
}
