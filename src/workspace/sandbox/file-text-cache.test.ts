import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from './create-sandbox.ts';
import { FileTextCache } from './file-text-cache.ts';

let root: string;
let box: Sandbox;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'ctxloom-text-cache-'));
  box = createSandbox({ root });
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A text over the cache's smallest size, with two-byte and four-byte characters. */
const big = (tag: string) => `${tag}:${'长文本 😀 line\n'.repeat(600)}`;

describe('file text cache', () => {
  it('hands back the same string for the same bytes, whoever wrote them', async () => {
    await box.writeText('a.txt', big('one'));
    const first = await box.readText('a.txt');
    expect(first).toBe(big('one'));
    expect(await box.readText('a.txt')).toBe(first);
    // Another program rewrites the file with bytes of exactly the same length.
    await writeFile(join(root, 'a.txt'), big('two'));
    expect(await box.readText('a.txt')).toBe(big('two'));
  });

  it('keeps at most its byte budget, oldest out first', () => {
    const cache = new FileTextCache(40_000);
    const bytes = (fill: number) => new Uint8Array(9_000).fill(fill);
    for (let index = 0; index < 6; index++) cache.set(`/f${index}`, bytes(index), `text ${index}`);
    expect(cache.get('/f0', bytes(0))).toBeUndefined();
    expect(cache.get('/f5', bytes(5))).toBe('text 5');
    expect(cache.get('/f5', bytes(6))).toBeUndefined();
  });
});

describe('sandbox update with a text edit', () => {
  it('writes the kept start and the insert, byte for byte as a whole write would', async () => {
    const text = big('head');
    await box.writeText('log.txt', text);
    const written = await box.update('log.txt', (current) => ({
      keep: (current as string).length - 1,
      insert: '，追加 🎉\n',
    }));
    expect(written).toBe(`${text.slice(0, -1)}，追加 🎉\n`);
    expect(await readFile(join(root, 'log.txt'), 'utf8')).toBe(written);
    expect(await box.readText('log.txt')).toBe(written);
  });

  it('encodes a file with a byte-order mark, or a cut inside a surrogate pair, whole', async () => {
    await writeFile(join(root, 'bom.txt'), `\uFEFF${big('bom')}`);
    const bom = await box.update('bom.txt', (current) => ({ keep: (current as string).length, insert: 'x' }));
    expect(await readFile(join(root, 'bom.txt'), 'utf8')).toBe(bom);
    await box.writeText('pair.txt', `${big('pair')}😀`);
    // Kept up to the pair's first half, the insert completing it (😀 is \ud83d\ude00).
    const pair = await box.update('pair.txt', (current) => ({
      keep: (current as string).length - 1,
      insert: '\ude00!',
    }));
    expect(pair.endsWith('😀!')).toBe(true);
    expect(await readFile(join(root, 'pair.txt'))).toEqual(Buffer.from(pair, 'utf8'));
    // Left half a pair, the text is refused: UTF-8 cannot hold it (it was stored as U+FFFD).
    await expect(
      box.update('pair.txt', (current) => ({ keep: (current as string).length - 2, insert: '?' })),
    ).rejects.toMatchObject({ code: 'invalid-argument', file: 'pair.txt' });
    expect(await readFile(join(root, 'pair.txt'))).toEqual(Buffer.from(pair, 'utf8'));
  });

  it('refuses an edit that keeps more than the text holds, writing nothing', async () => {
    await box.writeText('small.txt', 'abc');
    await expect(box.update('small.txt', () => ({ keep: 4, insert: 'd' }))).rejects.toMatchObject({
      code: 'invalid-argument',
      file: 'small.txt',
    });
    expect(await readFile(join(root, 'small.txt'), 'utf8')).toBe('abc');
  });
});
