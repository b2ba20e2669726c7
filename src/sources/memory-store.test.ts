import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { CtxloomError, type Message } from '../core/index.ts';
import { type MemoryStoreOptions, openMemoryStore } from './memory-store.ts';
import type { MemoryStore } from './memory-view.ts';
import { createPostgresMemoryStore } from './postgres-memory-store.ts';

type StoreOptions = Omit<MemoryStoreOptions, 'path' | 'database'>;

/** One persistence of the memory store: a fresh location, opening at it, and a format bump. */
interface Backend {
  name: string;
  location(): string;
  open(location: string, options: StoreOptions): Promise<MemoryStore>;
  bumpFormat(location: string): Promise<void>;
}

const directories: string[] = [];
const url = process.env.CTXLOOM_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const run = `ctxloom_memory_${process.pid}_${Date.now().toString(36)}`;
const schemas: string[] = [];
const pool = new pg.Pool({ connectionString: url, max: 4 });
afterAll(async () => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
  for (const schema of schemas.splice(0)) await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await pool.end();
});

const sqlite: Backend = {
  name: 'SQLite',
  location() {
    const directory = mkdtempSync(join(tmpdir(), 'ctxloom-memory-'));
    directories.push(directory);
    return join(directory, 'memory.db');
  },
  async open(path, options) {
    return openMemoryStore({ ...options, path });
  },
  async bumpFormat(path) {
    const database = new DatabaseSync(path);
    database.exec("UPDATE ctxloom_formats SET version = 99 WHERE component = 'memory'");
    database.close();
  },
};

const postgres: Backend = {
  name: 'PostgreSQL',
  location() {
    const schema = `${run}_${schemas.length}`;
    schemas.push(schema);
    return schema;
  },
  open(schema, options) {
    return createPostgresMemoryStore({ ...options, pool, schema });
  },
  async bumpFormat(schema) {
    await pool.query(`UPDATE "${schema}".ctxloom_formats SET version = 99 WHERE component = 'memory'`);
  },
};

const user = (id: string, content: string): Message => ({ id, role: 'user', content });
const assistant = (id: string, content: string): Message => ({ id, role: 'assistant', content });

describe.each([sqlite, postgres])('memory store on $name', (backend) => {
  const open = (options: StoreOptions) => backend.open(backend.location(), options);

  it('keeps the latest recentLimit messages as L1', async () => {
    const memory = await open({ agentId: 'a', sessionId: 's', recentLimit: 2 });
    await memory.append([user('1', 'one'), assistant('2', 'two'), user('3', 'three')]);
    expect(memory.recent().map((entry) => entry.id)).toEqual(['2', '3']);
    expect(memory.recent({ limit: 0 })).toEqual([]);
    await memory.close();
  });

  it('puts decisions, requirements and corrections in L2, most important first', async () => {
    const memory = await open({ agentId: 'a', sessionId: 's' });
    await memory.append([
      user('1', 'hello there'),
      assistant('2', 'We decided to use PostgreSQL.'),
      user('3', 'The API must return JSON.'),
      user('4', '不对，我的意思是用 Redis'),
    ]);
    expect(memory.important().map((entry) => [entry.id, entry.reasons[0]])).toEqual([
      ['2', 'decision'],
      ['4', 'correction'],
      ['3', 'requirement'],
    ]);
    await memory.close();
  });

  it('marks and unmarks entries explicitly, and the mark persists', async () => {
    const location = backend.location();
    const memory = await backend.open(location, { agentId: 'a', sessionId: 's' });
    await memory.append([user('1', 'remember the blue folder')]);
    await memory.mark('1', true);
    expect(memory.important()[0]).toMatchObject({ id: '1', importance: 1, reasons: ['marked'] });
    await memory.close();
    const reopened = await backend.open(location, { agentId: 'a', sessionId: 's' });
    expect(reopened.important()[0]).toMatchObject({ id: '1', importance: 1, reasons: ['marked'] });
    await reopened.mark('1', false);
    expect(reopened.important()).toEqual([]);
    await expect(reopened.mark('missing', true)).rejects.toThrow(CtxloomError);
    await reopened.close();
  });

  it('persists across reopen and keeps agents and sessions apart', async () => {
    const location = backend.location();
    const first = await backend.open(location, { agentId: 'a', sessionId: 's', now: () => 42 });
    await first.append([user('1', 'We decided on Rust'), assistant('2', 'ok')]);
    await first.close();
    const other = await backend.open(location, { agentId: 'b', sessionId: 's' });
    expect(other.entries()).toEqual([]);
    await other.close();
    const reopened = await backend.open(location, { agentId: 'a', sessionId: 's' });
    expect(reopened.entries().map((entry) => [entry.id, entry.seq, entry.createdAt])).toEqual([
      ['1', 0, 42],
      ['2', 1, 42],
    ]);
    expect(reopened.entries()[0]?.message).toEqual(user('1', 'We decided on Rust'));
    expect(reopened.important()[0]?.id).toBe('1');
    await reopened.close();
  });

  it('ignores a message id it already stored, or repeated in one batch', async () => {
    const memory = await open({ agentId: 'a', sessionId: 's' });
    await memory.append([user('1', 'x')]);
    expect(
      (await memory.append([user('1', 'x'), user('2', 'y'), user('2', 'y')])).map((entry) => entry.id),
    ).toEqual(['2']);
    expect(memory.entries().map((entry) => entry.id)).toEqual(['1', '2']);
    await memory.close();
  });

  it('searches every message through its L4 recall source, with neighbouring turns on request', async () => {
    const memory = await open({ agentId: 'a', sessionId: 's' });
    await memory.append([
      user('1', 'Where do we deploy?'),
      assistant('2', 'To Fly.io in Frankfurt.'),
      user('3', 'thanks'),
    ]);
    const [hit] = await memory.recallSource().recall({ query: 'deploy Frankfurt', limit: 5 });
    expect(hit?.metadata.messageId).toBeDefined();
    const [ranged] = await memory
      .recallSource({ messageRange: 1 })
      .recall({ query: 'Fly.io Frankfurt', limit: 1 });
    expect(ranged?.content).toBe(
      'user: Where do we deploy?\nassistant: To Fly.io in Frankfurt.\nuser: thanks',
    );
    await memory.close();
  });

  it('refuses a database written by a newer format', async () => {
    const location = backend.location();
    await (await backend.open(location, { agentId: 'a', sessionId: 's' })).close();
    await backend.bumpFormat(location);
    await expect(backend.open(location, { agentId: 'a', sessionId: 's' })).rejects.toThrow(/newer/);
  });
});
