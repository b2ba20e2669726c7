import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { main } from '../main.ts';
import { parseStoreOption } from '../store-option.ts';
import { runServe } from './serve.ts';

const EXAMPLE = fileURLToPath(new URL('../../../examples/notebook', import.meta.url));

function bufferIo() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: { stdout: (text: string) => out.push(text), stderr: (text: string) => err.push(text), color: false },
    out,
    err,
  };
}

describe('ctxloom serve', () => {
  it('refuses a bad port and a missing workspace as usage errors', async () => {
    const port = bufferIo();
    expect(await main(['serve', 'examples/notebook', '--port', 'x'], port.io)).toBe(2);
    expect(port.err.join('')).toContain('--port must be 0..65535');
    // Number() would read these as 16, 80 and 0.
    for (const typed of ['0x10', '8e1', ' ']) {
      const odd = bufferIo();
      expect(await main(['serve', 'examples/notebook', '--port', typed], odd.io)).toBe(2);
      expect(odd.err.join('')).toContain('--port must be 0..65535');
    }
    const missing = bufferIo();
    expect(await main(['serve'], missing.io)).toBe(2);
    expect(missing.err.join('')).toContain('exactly one <workspace>');
  });

  it('refuses a missing workspace (or a file) at start, as mcp does, without copying it', async () => {
    const root = await mkdtemp(join(tmpdir(), 'ctxloom-serve-missing-'));
    try {
      await writeFile(join(root, 'a-file'), 'x');
      // `--port 0`: without the check serve would start, and on a free port, not the default one.
      for (const command of ['serve', 'mcp']) {
        const options = command === 'serve' ? ['--port', '0'] : [];
        const missing = bufferIo();
        expect(await main([command, 'nope', ...options], { ...missing.io, cwd: root })).toBe(1);
        expect(missing.err.join('')).toBe(
          `ctxloom ${command}: not-found: workspace folder does not exist (nope)\n`,
        );
        const file = bufferIo();
        expect(await main([command, 'a-file', ...options], { ...file.io, cwd: root })).toBe(1);
        expect(file.err.join('')).toBe(
          `ctxloom ${command}: invalid-argument: the workspace is a file, not a folder (a-file)\n`,
        );
      }
      const copy = bufferIo();
      expect(
        await main(['serve', 'nope', '--copy-to', 'copy', '--port', '0'], { ...copy.io, cwd: root }),
      ).toBe(1);
      expect(copy.err.join('')).toBe('ctxloom serve: not-found: workspace folder does not exist (nope)\n');
      expect(existsSync(join(root, 'copy'))).toBe(false);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('refuses a --copy-to inside the workspace, through a symlink too, copying nothing (exit 2)', async () => {
    const root = await mkdtemp(join(tmpdir(), 'ctxloom-serve-copy-into-'));
    try {
      await mkdir(join(root, 'ws', 's1'), { recursive: true });
      await writeFile(join(root, 'ws', 's1', 'guidance.md'), '# g\n');
      await symlink('ws', join(root, 'link'));
      for (const target of ['ws/copy', 'ws/s1/deeper/copy', 'link/copy']) {
        const run = bufferIo();
        expect(
          await main(['serve', 'ws', '--copy-to', target, '--port', '0'], { ...run.io, cwd: root }),
          target,
        ).toBe(2);
        expect(run.err.join('')).toMatch(
          new RegExp(
            `^ctxloom serve: invalid-argument: --copy-to must be outside the workspace it copies \\(${target}\\)\n`,
            'u',
          ),
        );
        expect(run.err.join('')).not.toContain(root);
        expect(run.out).toEqual([]);
      }
      expect(await readdir(join(root, 'ws'))).toEqual(['s1']);
      expect(await readdir(join(root, 'ws', 's1'))).toEqual(['guidance.md']);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('a port in use exits 1 with one line naming host and port, no stack', async () => {
    const root = await mkdtemp(join(tmpdir(), 'ctxloom-serve-port-'));
    const taken = createServer();
    await new Promise<void>((done) => taken.listen(0, '127.0.0.1', done));
    const { port } = taken.address() as AddressInfo;
    try {
      await cp(EXAMPLE, root, { recursive: true });
      const { io, out, err } = bufferIo();
      expect(await main(['serve', root, '--port', String(port)], io)).toBe(1);
      expect(err.join('')).toBe(
        `ctxloom serve: conflict: cannot listen on 127.0.0.1:${port}: the port is already in use (at port)\n`,
      );
      expect(out.join('')).toBe('');
    } finally {
      await new Promise((done) => taken.close(done));
      await rm(root, { recursive: true, force: true });
    }
  });

  it('parses --store: files by default, sqlite:<file> from the cwd, PostgreSQL URLs; else a usage error', async () => {
    expect(parseStoreOption(undefined, '/w')).toEqual({ kind: 'files' });
    expect(parseStoreOption('sqlite:s.db', '/w')).toEqual({ kind: 'sqlite', path: '/w/s.db' });
    expect(parseStoreOption('postgres://db/app?schema=notebook', '/w')).toEqual({
      kind: 'postgres',
      connectionString: 'postgres://db/app',
      schema: 'notebook',
    });
    expect(() => parseStoreOption('redis://x', '/w')).toThrow(
      /^--store: unknown session store "redis:\/\/x": use files, sqlite:<path> or postgres:\/\/… \(at store\)$/u,
    );
    // A known kind with a bad value is not "unknown", and the location is said once.
    expect(() => parseStoreOption('sqlite:', '/w')).toThrow(
      /^--store: invalid session store "sqlite:": no database file path after "sqlite:" \(at store\)$/u,
    );
    const bad = bufferIo();
    expect(await main(['serve', 'examples/notebook', '--store', 'mysql://db'], bad.io)).toBe(2);
    expect(bad.err.join('')).toContain('--store');
  });

  it('serves sessions from a SQLite checkpoint store with --store sqlite:<file>', async () => {
    const root = await mkdtemp(join(tmpdir(), 'ctxloom-serve-store-'));
    await cp(EXAMPLE, join(root, 'ws'), { recursive: true });
    const { io, out } = bufferIo();
    const stop = new AbortController();
    const running = runServe(
      ['ws', '--port', '0', '--store', 'sqlite:sessions.db'],
      { ...io, cwd: root },
      stop.signal,
    );
    try {
      await expect.poll(() => out.join(''), { timeout: 20_000 }).toMatch(/http:\/\/127\.0\.0\.1:\d+/u);
      expect(out.join('')).toContain(`store     sqlite ${join(root, 'sessions.db')}`);
      expect(existsSync(join(root, 'sessions.db'))).toBe(true);
    } finally {
      stop.abort();
      expect(await running).toBe(0);
      await rm(root, { recursive: true, force: true });
    }
  });

  it('serves a workspace, prints the URL and stops when told', async () => {
    const root = await mkdtemp(join(tmpdir(), 'ctxloom-serve-'));
    await cp(EXAMPLE, root, { recursive: true });
    const { io, out } = bufferIo();
    const stop = new AbortController();
    const running = runServe([root, '--port', '0'], io, stop.signal);
    try {
      await expect.poll(() => out.join(''), { timeout: 20_000 }).toMatch(/http:\/\/127\.0\.0\.1:\d+/u);
      const match = /(http:\/\/127\.0\.0\.1:\d+)\/\?token=([\w-]+)/u.exec(out.join(''));
      const [, url, token] = match ?? [];
      expect((await fetch(`${url}/api/sessions`)).status).toBe(401);
      const response = await fetch(`${url}/api/sessions`, { headers: { Authorization: `Bearer ${token}` } });
      expect(((await response.json()) as { model: { spec: string } }).model.spec).toBe('offline');
      expect(out.join('')).toContain('model     offline');
    } finally {
      stop.abort();
      expect(await running).toBe(0);
      await rm(root, { recursive: true, force: true });
    }
  });
});
