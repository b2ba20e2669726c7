import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Plugin } from 'vite';

/** Extensions worth compressing: text the server sends with a compressible type. */
const TEXT = /\.(?:js|mjs|css|html|svg|json|txt|map)$/u;

/**
 * Writes `x.br` (Brotli, quality 11) and `x.gz` (gzip, level 9) beside every text file of the
 * build over 1 KiB, so the notebook server sends them precompressed (`serveStatic`'s
 * `precompressed`): done once at build time, at the best ratios, never per request.
 */
export function precompress(): Plugin {
  let outDir = '';
  return {
    name: 'ctxloom-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = config.build.outDir;
    },
    writeBundle(_options, bundle) {
      for (const [fileName, output] of Object.entries(bundle)) {
        if (!TEXT.test(fileName)) continue;
        const source = output.type === 'chunk' ? output.code : output.source;
        const bytes = typeof source === 'string' ? Buffer.from(source) : Buffer.from(source);
        if (bytes.length < 1024) continue;
        const path = join(outDir, fileName);
        writeFileSync(
          `${path}.br`,
          brotliCompressSync(bytes, {
            params: {
              [constants.BROTLI_PARAM_QUALITY]: 11,
              [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
            },
          }),
        );
        writeFileSync(`${path}.gz`, gzipSync(bytes, { level: 9 }));
      }
    },
  };
}
