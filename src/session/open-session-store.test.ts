import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openWorkspace } from '../workspace/index.ts';
import { openSessionStore, parseSessionStoreSpec } from './open-session-store.ts';

const directory = mkdtempSync(join(tmpdir(), 'ctxloom-open-store-'));
const workspace = openWorkspace({ root: directory });
const url = process.env.CTXLOOM_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `ctxloom_open_${process.pid}_${Date.now().toString(36)}`;

afterAll(async () => {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.end();
  rmSync(directory, { recursive: true, force: true });
});

describe('parseSessionStoreSpec', () => {
  it('reads files (the default), sqlite:<path> from cwd, and PostgreSQL URLs with a schema', () => {
    expect(parseSessionStoreSpec(undefined)).toEqual({ kind: 'files' });
    expect(parseSessionStoreSpec('files')).toEqual({ kind: 'files' });
    expect(parseSessionStoreSpec('sqlite:data/s.db', { cwd: '/srv' })).toEqual({
      kind: 'sqlite',
      path: '/srv/data/s.db',
    });
    expect(parseSessionStoreSpec('sqlite:/abs/s.db')).toEqual({ kind: 'sqlite', path: '/abs/s.db' });
    expect(parseSessionStoreSpec('postgres://u:pw@db:5432/app?schema=ctx&sslmode=disable')).toEqual({
      kind: 'postgres',
      connectionString: 'postgres://u:pw@db:5432/app?sslmode=disable',
      schema: 'ctx',
    });
    expect(parseSessionStoreSpec('postgresql://db/app')).toMatchObject({
      kind: 'postgres',
      schema: 'public',
    });
  });

  it('refuses anything else as invalid-argument naming store, without echoing a password', () => {
    for (const spec of [
      'redis://x',
      'sqlite:',
      'mysql://db',
      'file.db',
      'postgres://u:secret@db/app?schema=a-b',
    ]) {
      let error: unknown;
      try {
        parseSessionStoreSpec(spec);
      } catch (caught) {
        error = caught;
      }
      expect(error, spec).toMatchObject({ code: 'invalid-argument', path: 'store' });
      expect(String((error as Error).message)).not.toContain('secret');
      // Only a kind it does not know is "unknown"; a bad sqlite or PostgreSQL value is "invalid".
      const known = spec.startsWith('sqlite:') || spec.startsWith('postgres');
      expect(String((error as Error).message)).toMatch(
        known ? /^invalid session store/u : /^unknown session store/u,
      );
    }
  });
});

describe('openSessionStore', () => {
  it('opens the files, SQLite and PostgreSQL adapters', async () => {
    await workspace.sandbox.writeText('s1/context-config.json', '{}\n');
    const message = { id: 'u1', role: 'user' as const, content: 'hello' };
    const files = await openSessionStore('files', { workspace });
    const sqlite = await openSessionStore('sqlite:sessions.db', { workspace, cwd: directory });
    const postgres = await openSessionStore(`${url}?schema=${schema}`, { workspace });
    expect([files.kind, sqlite.kind, postgres.kind]).toEqual(['files', 'sqlite', 'postgres']);
    for (const store of [files, sqlite, postgres]) {
      await store.appendMessages('s1', [message]);
      expect((await store.load('s1')).messages).toEqual([message]);
      await store.close();
    }
    expect(existsSync(join(directory, 'sessions.db'))).toBe(true);
  });
});

/** A child appending `count` messages through `openSessionStore('sqlite:<path>')`, as a CLI turn does. */
function startSqliteChild(path: string, sessionId: string, tag: string, count: number) {
  const child = spawn(
    process.execPath,
    [
      '--conditions=ctxloom-source',
      '--no-warnings',
      new URL('./sqlite-append-child.test-support.ts', import.meta.url).pathname,
      path,
      directory,
      sessionId,
      tag,
      String(count),
    ],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const ready = new Promise<void>((resolve) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.startsWith('ready\n')) resolve();
    });
  });
  const done = new Promise<{ stored: string[]; refused: { id: string; code: unknown }[] }>(
    (resolve, reject) => {
      child.on('exit', (code) => {
        const line = stdout.split('\n').find((entry) => entry.startsWith('{'));
        if (code === 0 && line !== undefined) resolve(JSON.parse(line));
        else reject(new Error(`child ${tag} exited with ${code}: ${stderr}`));
      });
    },
  );
  return { child, ready, done };
}

describe('two processes on one SQLite session store (sqlite:<path>, as two CLI turns open it)', () => {
  it('loses no acknowledged append: each write holds the thread across processes', async () => {
    const path = join(directory, 'two-processes.db');
    const first = startSqliteChild(path, 's1', 'a', 12);
    const second = startSqliteChild(path, 's1', 'b', 12);
    await Promise.all([first.ready, second.ready]);
    first.child.stdin.write('go\n');
    second.child.stdin.write('go\n');
    const results = await Promise.all([first.done, second.done]);
    const acknowledged = results.flatMap((result) => result.stored).sort();
    const store = await openSessionStore(`sqlite:${path}`, { workspace });
    const ids = (await store.load('s1')).messages.map((message) => message.id);
    await store.close();
    // Every refusal is a typed conflict (the other process held the thread too long), never lost silently.
    for (const result of results) for (const refusal of result.refused) expect(refusal.code).toBe('conflict');
    expect([...ids].sort()).toEqual(acknowledged);
    expect(acknowledged.length).toBeGreaterThan(0);
  });
});
