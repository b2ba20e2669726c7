import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { CtxloomError, type Message } from '../core/index.ts';
import { openMemoryStore } from './memory-store.ts';

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});
function databasePath(): string {
  const directory = mkdtempSync(join(tmpdir(), 'ctxloom-memory-'));
  directories.push(directory);
  return join(directory, 'memory.db');
}

const user = (id: string, content: string): Message => ({ id, role: 'user', content });
const assistant = (id: string, content: string): Message => ({ id, role: 'assistant', content });

describe('openMemoryStore', () => {
  it('keeps the latest recentLimit messages as L1', () => {
    const memory = openMemoryStore({ agentId: 'a', sessionId: 's', recentLimit: 2 });
    memory.append([user('1', 'one'), assistant('2', 'two'), user('3', 'three')]);
    expect(memory.recent().map((entry) => entry.id)).toEqual(['2', '3']);
    expect(memory.recent({ limit: 0 })).toEqual([]);
  });

  it('puts decisions, requirements and corrections in L2, most important first', () => {
    const memory = openMemoryStore({ agentId: 'a', sessionId: 's' });
    memory.append([
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
  });

  it('marks and unmarks entries explicitly', () => {
    const memory = openMemoryStore({ agentId: 'a', sessionId: 's' });
    memory.append([user('1', 'remember the blue folder')]);
    memory.mark('1', true);
    expect(memory.important()[0]).toMatchObject({ id: '1', importance: 1, reasons: ['marked'] });
    memory.mark('1', false);
    expect(memory.important()).toEqual([]);
    expect(() => memory.mark('missing', true)).toThrow(CtxloomError);
  });

  it('persists across reopen and keeps agents and sessions apart', () => {
    const path = databasePath();
    const first = openMemoryStore({ path, agentId: 'a', sessionId: 's', now: () => 42 });
    first.append([user('1', 'We decided on Rust'), assistant('2', 'ok')]);
    first.close();
    const other = openMemoryStore({ path, agentId: 'b', sessionId: 's' });
    expect(other.entries()).toEqual([]);
    other.close();
    const reopened = openMemoryStore({ path, agentId: 'a', sessionId: 's' });
    expect(reopened.entries().map((entry) => [entry.id, entry.seq, entry.createdAt])).toEqual([
      ['1', 0, 42],
      ['2', 1, 42],
    ]);
    expect(reopened.important()[0]?.id).toBe('1');
    reopened.close();
  });

  it('ignores a message id it already stored', () => {
    const memory = openMemoryStore({ agentId: 'a', sessionId: 's' });
    memory.append([user('1', 'x')]);
    expect(memory.append([user('1', 'x'), user('2', 'y')]).map((entry) => entry.id)).toEqual(['2']);
  });

  it('searches every message through its L4 recall source, with neighbouring turns on request', async () => {
    const memory = openMemoryStore({ agentId: 'a', sessionId: 's' });
    memory.append([
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
  });

  it('refuses a database written by a newer format', () => {
    const path = databasePath();
    openMemoryStore({ path, agentId: 'a', sessionId: 's' }).close();
    const database = new DatabaseSync(path);
    database.exec("UPDATE ctxloom_formats SET version = 99 WHERE component = 'memory'");
    database.close();
    expect(() => openMemoryStore({ path, agentId: 'a', sessionId: 's' })).toThrow(/newer/);
  });
});
