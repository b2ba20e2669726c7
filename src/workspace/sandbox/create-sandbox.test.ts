import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CtxloomError } from 'ctxloom';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shorten } from '../../core/shorten.ts';
import { openWorkspace } from '../workspace.ts';
import { createSandbox, type Sandbox } from './create-sandbox.ts';

let base: string;
let session: string;
let box: Sandbox;

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'ctxloom-sandbox-'));
  session = join(base, 'workspace', 's1');
  await mkdir(join(session, 'notes'), { recursive: true });
  await mkdir(join(base, 'workspace', 's2'), { recursive: true });
  await writeFile(join(base, 'secret.txt'), 'top secret');
  await writeFile(join(base, 'workspace', 's2', 'messages.json'), '[]');
  await writeFile(join(base, 'workspace', 'profile.md'), '# 基本信息\n');
  await writeFile(join(session, 'guidance.md'), '# 指南\n第一行\n');
  await writeFile(join(session, 'notes', 'a.md'), 'a');
  await symlink(join(base, 'secret.txt'), join(session, 'link-out.txt'));
  await symlink(base, join(session, 'dir-out'));
  await symlink('../s2', join(session, 'sibling'));
  await symlink(join(session, 'guidance.md'), join(session, 'link-in.md'));
  await symlink(join(base, 'nowhere'), join(session, 'dangling'));
  await symlink('/etc', join(session, 'notes', 'etc'));
  await symlink('../../../secret.txt', join(session, 'notes', 'relative-out'));
  box = createSandbox({ root: session });
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

const lexicalEscapes: string[] = [
  '../secret.txt',
  '../../secret.txt',
  '..',
  'notes/../../s2/messages.json',
  'notes/../..',
  './../secret.txt',
  'a/b/../../../x',
  '/etc/passwd',
  '/',
  '//server/share',
  'C:/Windows/win.ini',
  'c:secret',
  '..\\secret.txt',
  'notes\\..\\..\\secret.txt',
  '\\\\server\\share',
  'guidance.md\u0000.png',
  '\u0000',
  'notes/\u0000/a.md',
  '%2e%2e/secret.txt',
  '..%2fsecret.txt',
  '..%2Fsecret.txt',
  'notes%2f..%2f..%2fsecret.txt',
  '%2E%2E%5Csecret.txt',
  '%252e%252e/secret.txt'.replace('%25', '%'),
  'guidance.md%00',
  '~/secret.txt',
  '~root/.ssh/id_rsa',
  'notes/\n../secret.txt',
  'guidance\r.md',
  '\u001b[31m.md',
  '....//....//secret.txt'.replace(/\.\.\.\./gu, '..'),
];

/** Paths that stay inside but are too long for it, by what is too long. */
const overLong: [string, string][] = [
  ['2,000 characters', 'x'.repeat(2000)],
  ['1,201 characters in 601 segments', `${'a/'.repeat(600)}b`],
  ['a segment of 273 bytes', `${'长'.repeat(90)}.md`],
];

const symlinkEscapes: string[] = [
  'link-out.txt',
  'dir-out/secret.txt',
  'dir-out',
  'sibling/messages.json',
  'sibling',
  'notes/etc/passwd',
  'notes/etc',
  'notes/relative-out',
  'dangling',
  'dir-out/workspace/s2/messages.json',
];

describe('createSandbox', () => {
  it('has at least forty escape attempts under test', () => {
    expect(lexicalEscapes.length + symlinkEscapes.length).toBeGreaterThanOrEqual(40);
  });

  it.each(lexicalEscapes)('refuses the lexical escape %j with path-escape naming the path', async (path) => {
    const error = await box.readText(path).catch((caught: unknown) => caught);
    expect(CtxloomError.is(error, 'path-escape')).toBe(true);
    // Named as given, shortened when long (an error does not send a long path back whole).
    expect((error as CtxloomError).file).toBe(shorten(path));
    expect(JSON.stringify(error).length).toBeLessThan(1_000);
    const writeError = await box.writeText(path, 'x').catch((caught: unknown) => caught);
    expect(CtxloomError.is(writeError, 'path-escape')).toBe(true);
  });

  it.each(overLong)('refuses a path of %s with invalid-argument, not path-escape', async (_name, path) => {
    for (const attempt of [() => box.readText(path), () => box.writeText(path, 'x')]) {
      const error = await attempt().catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 'invalid-argument', file: shorten(path) });
      expect(JSON.stringify(error).length).toBeLessThan(1_000);
    }
  });

  it.each(symlinkEscapes)(
    'refuses %j, which leaves through a symlink, for reads and writes',
    async (path) => {
      const error = await box.readText(path).catch((caught: unknown) => caught);
      expect(CtxloomError.is(error, 'path-escape')).toBe(true);
      expect((error as CtxloomError).message).toContain(JSON.stringify(path));
      const writeError = await box.writeText(path, 'pwned').catch((caught: unknown) => caught);
      expect(CtxloomError.is(writeError, 'path-escape')).toBe(true);
      expect(await readFile(join(base, 'secret.txt'), 'utf8')).toBe('top secret');
    },
  );

  it('refuses a write into a new file below a folder symlink that leaves', async () => {
    const error = await box.writeText('dir-out/new/evil.md', 'x').catch((caught: unknown) => caught);
    expect(CtxloomError.is(error, 'path-escape')).toBe(true);
    expect(await readdir(base)).not.toContain('new');
  });

  it('follows symlinks that stay inside the root', async () => {
    expect(await box.readText('link-in.md')).toBe('# 指南\n第一行\n');
  });

  it('reads files with redundant dots and slashes', async () => {
    expect(await box.readText('./notes//a.md')).toBe('a');
  });

  it('reports a missing file as not-found naming it', async () => {
    const error = await box.readText('missing.md').catch((caught: unknown) => caught);
    expect(CtxloomError.is(error, 'not-found')).toBe(true);
    expect((error as CtxloomError).file).toBe('missing.md');
  });

  it('names a root deleted after it was opened by its folder name, never its absolute path', async () => {
    const root = join(base, 'gone-session');
    await mkdir(root);
    const gone = createSandbox({ root });
    await rm(root, { recursive: true });
    const error = await gone.readText('notes.md').catch((caught: unknown) => caught);
    expect(CtxloomError.is(error, 'not-found')).toBe(true);
    expect((error as CtxloomError).message).toContain('"gone-session" does not exist');
    expect(JSON.stringify({ ...(error as CtxloomError), message: (error as Error).message })).not.toContain(
      base,
    );
  });

  it('writes atomically, creating folders, and leaves no temp file behind', async () => {
    await box.writeText('drafts/plan.md', '计划');
    expect(await readFile(join(session, 'drafts', 'plan.md'), 'utf8')).toBe('计划');
    expect(await readdir(join(session, 'drafts'))).toEqual(['plan.md']);
  });

  it('enforces the read and write byte limits', async () => {
    const small = createSandbox({ root: session, maxReadBytes: 4, maxWriteBytes: 4 });
    await expect(small.readText('guidance.md')).rejects.toMatchObject({
      code: 'too-large',
      file: 'guidance.md',
    });
    await expect(small.writeText('x.md', '12345')).rejects.toMatchObject({ code: 'too-large' });
  });

  it('reads a 5 MB file under the default limit and refuses one over it', async () => {
    const fiveMegabytes = `${'# 标题\n'}${'分布式系统。'.repeat(300_000)}`;
    await writeFile(join(session, 'five.md'), fiveMegabytes);
    expect((await box.readText('five.md')).length).toBe(fiveMegabytes.length);
    await writeFile(join(session, 'nine.md'), Buffer.alloc(9 * 1024 * 1024, 0x61));
    await expect(box.readText('nine.md')).rejects.toMatchObject({ code: 'too-large', file: 'nine.md' });
  });

  it('refuses binary files and invalid UTF-8 with typed errors', async () => {
    await writeFile(join(session, 'image.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]));
    await writeFile(join(session, 'latin1.md'), Buffer.from('ok\nbad \xe9 byte\n', 'latin1'));
    await expect(box.readText('image.png')).rejects.toMatchObject({ code: 'unsupported', file: 'image.png' });
    await expect(box.readText('latin1.md')).rejects.toMatchObject({ code: 'parse-error', line: 2 });
  });

  it('refuses to write a NUL, which would make the file read as binary, and writes nothing', async () => {
    for (const write of [
      () => box.writeText('notes/nul.md', 'a\u0000b'),
      () => box.update('notes/nul.md', () => `${'x'.repeat(10_000)}\u0000`),
    ]) {
      await expect(write()).rejects.toMatchObject({ code: 'invalid-argument', file: 'notes/nul.md' });
    }
    await expect(box.readText('notes/nul.md')).rejects.toMatchObject({ code: 'not-found' });
  });

  it('serialises concurrent updates of one file so no append is lost', async () => {
    await box.writeText('messages.json', '[]');
    const other = createSandbox({ root: session });
    await Promise.all(
      Array.from({ length: 40 }, (_, index) =>
        (index % 2 === 0 ? box : other).update('messages.json', (current) =>
          JSON.stringify([...(JSON.parse(current ?? '[]') as number[]), index]),
        ),
      ),
    );
    const stored = JSON.parse(await box.readText('messages.json')) as number[];
    expect(stored.toSorted((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, index) => index));
  });

  it('refuses to list a file as a folder with a typed error', async () => {
    await expect(box.list('guidance.md')).rejects.toMatchObject({
      code: 'invalid-argument',
      file: 'guidance.md',
    });
  });

  it('lists files sorted, hiding symlinks that leave', async () => {
    const entries = await box.list('', { recursive: true });
    const paths = entries.map((entry) => entry.path);
    expect(paths).toContain('guidance.md');
    expect(paths).toContain('notes/a.md');
    expect(paths).toContain('link-in.md');
    expect(paths).not.toContain('link-out.txt');
    expect(paths).not.toContain('dir-out');
    expect(paths).not.toContain('notes/etc');
  });

  it('reads whitelisted global files from the workspace but nothing else there', async () => {
    const workspace = createSandbox({ root: join(base, 'workspace') });
    const withGlobals = createSandbox({
      root: session,
      globals: { sandbox: workspace, files: ['profile.md'] },
    });
    expect(await withGlobals.readText('profile.md')).toBe('# 基本信息\n');
    await expect(withGlobals.readText('s2/messages.json')).rejects.toMatchObject({ code: 'not-found' });
    await expect(withGlobals.readText('../s2/messages.json')).rejects.toMatchObject({ code: 'path-escape' });
  });
});

describe('createSandbox options', () => {
  it('refuses a lock wait that is not a number (NaN would wait for a live lock for good), through openWorkspace too', () => {
    for (const lockTimeoutMs of [Number.NaN, 'soon' as unknown as number]) {
      expect(() => createSandbox({ root: base, lockTimeoutMs })).toThrow(
        expect.objectContaining({ code: 'invalid-argument', path: 'lockTimeoutMs' }),
      );
      expect(() => openWorkspace({ root: base, limits: { lockTimeoutMs } })).toThrow(
        /lockTimeoutMs must be a number/,
      );
    }
    // A negative wait is no wait; Infinity waits as asked.
    expect(() => createSandbox({ root: base, lockTimeoutMs: -5 })).not.toThrow();
    expect(() => createSandbox({ root: base, lockTimeoutMs: Number.POSITIVE_INFINITY })).not.toThrow();
  });
});
