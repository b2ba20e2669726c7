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
