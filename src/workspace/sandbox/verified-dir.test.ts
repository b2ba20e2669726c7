import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSandbox } from './create-sandbox.ts';
import { isInside } from './verified-dir.ts';

let base: string;

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'ctxloom-verified-dir-')));
  await writeFile(join(base, 'guidance.md'), '# 指南\n');
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('isInside', () => {
  it('is true for the root itself and paths below it, false for a sibling sharing its prefix', () => {
    expect(isInside('/work', '/work')).toBe(true);
    expect(isInside('/work', '/work/s1/guidance.md')).toBe(true);
    expect(isInside('/work', '/workshop')).toBe(false);
    expect(isInside('/work', '/')).toBe(false);
  });

  it('holds every absolute path inside the file-system root', () => {
    expect(isInside(sep, sep)).toBe(true);
    expect(isInside(sep, `${sep}work`)).toBe(true);
    expect(isInside(sep, `${sep}work${sep}s1`)).toBe(true);
  });
});

describe('a sandbox rooted at the file-system root', () => {
  it('reads and writes below it instead of refusing every path as a symlink escape', async () => {
    const box = createSandbox({ root: sep });
    const folder = relative(sep, base).split(sep).join('/');
    expect(await box.readText(`${folder}/guidance.md`)).toBe('# 指南\n');
    await box.writeText(`${folder}/notes/new.md`, '# 新\n');
    expect(await readFile(join(base, 'notes', 'new.md'), 'utf8')).toBe('# 新\n');
  });
});
