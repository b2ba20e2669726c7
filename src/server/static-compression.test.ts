import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { precompress } from '../../web/precompress.ts';
import { createTestNotebook } from './test-workspace.test-support.ts';

let webRoot: string;
let notebook: Awaited<ReturnType<typeof createTestNotebook>>;
const script = `export const answer = ${JSON.stringify('提交规则 commit rule '.repeat(400))};\n`;

beforeAll(async () => {
  webRoot = await mkdtemp(join(tmpdir(), 'ctxloom-web-'));
  await mkdir(join(webRoot, 'assets'));
  await writeFile(join(webRoot, 'index.html'), '<!doctype html><script src="./assets/app.js"></script>');
  await writeFile(join(webRoot, 'assets', 'app.js'), script);
  // The build's own step: the Vite plugin writes .br and .gz beside each asset.
  const plugin = precompress() as unknown as {
    configResolved(config: { build: { outDir: string } }): void;
    writeBundle(options: unknown, bundle: Record<string, unknown>): void;
  };
  plugin.configResolved({ build: { outDir: webRoot } });
  plugin.writeBundle({}, { 'assets/app.js': { type: 'chunk', code: script } });
  notebook = await createTestNotebook({ webRoot });
});
afterAll(async () => {
  await notebook.cleanup();
  await rm(webRoot, { recursive: true, force: true });
});

const get = (path: string, encoding?: string) =>
  notebook.app.request(path, encoding === undefined ? {} : { headers: { 'Accept-Encoding': encoding } });

describe('the web build, served precompressed', () => {
  it('sends Brotli to a client that accepts it, smaller and byte-identical once decoded', async () => {
    const response = await get('/assets/app.js', 'gzip, deflate, br');
    expect(response.status).toBe(200);
    expect(response.headers.get('Content-Encoding')).toBe('br');
    expect(response.headers.get('Vary')).toContain('Accept-Encoding');
    expect(response.headers.get('Content-Type')).toContain('javascript');
    const body = Buffer.from(await response.arrayBuffer());
    expect(body.length).toBeLessThan(Buffer.byteLength(script) / 10);
    expect(brotliDecompressSync(body).toString()).toBe(script);
  });

  it('sends gzip to a gzip-only client and the plain file to one that accepts neither', async () => {
    const gzip = await get('/assets/app.js', 'gzip');
    expect(gzip.headers.get('Content-Encoding')).toBe('gzip');
    expect(gunzipSync(Buffer.from(await gzip.arrayBuffer())).toString()).toBe(script);
    const plain = await get('/assets/app.js');
    expect(plain.headers.get('Content-Encoding')).toBeNull();
    expect(await plain.text()).toBe(script);
  });
});
