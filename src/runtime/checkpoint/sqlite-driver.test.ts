import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CtxloomError } from '../../core/errors.ts';
import { createCheckpointSessionStore } from '../../session/checkpoint-session-store.ts';
import { SqliteSaver } from './sqlite-saver.ts';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'ctxloom-sqlite-open-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** The error `new SqliteSaver({ path })` throws. */
function openFailure(path: string): CtxloomError {
  try {
    new SqliteSaver({ path });
  } catch (error) {
    expect(error).toBeInstanceOf(CtxloomError);
    return error as CtxloomError;
  }
  throw new Error(`opening ${path} did not fail`);
}

describe('createSqliteDriver on a path it cannot open', () => {
  it('a missing folder is not-found naming the path, with SQLite error as cause', () => {
    const path = join(root, 'no', 'such', 'dir', 'x.db');
    const error = openFailure(path);
    expect(error.code).toBe('not-found');
    expect(error.message).toBe(`cannot open the SQLite database: its folder does not exist (${path})`);
    expect(error.file).toBe(path);
    expect((error.cause as Error).message).toBe('unable to open database file');
  });

  it('a folder is invalid-argument', async () => {
    const path = join(root, 'a-folder');
    await mkdir(path);
    const error = openFailure(path);
    expect(error.code).toBe('invalid-argument');
    expect(error.message).toBe(
      `cannot open the SQLite database: it is a folder, not a database file (${path})`,
    );
    expect(error.cause).toBeInstanceOf(Error);
  });

  it('a file that is not a database is invalid-argument and is left as it was', async () => {
    const path = join(root, 'notes.json');
    const text = `${JSON.stringify({ notes: ['x'.repeat(200)] }, null, 2)}\n`;
    await writeFile(path, text);
    const error = openFailure(path);
    expect(error.code).toBe('invalid-argument');
    expect(error.message).toBe(
      `cannot open the SQLite database: the file is not a SQLite database (${path})`,
    );
    expect((error.cause as Error).message).toBe('file is not a database');
    expect(await readFile(path, 'utf8')).toBe(text);
  });

  it('still opens a new file in an existing folder', async () => {
    const saver = new SqliteSaver({ path: join(root, 'ok.db') });
    await saver.setup();
    await saver.close();
  });
});

describe('a SQLite file that cannot grow (disk full)', () => {
  it('a write is a typed storage-error naming the file; nothing of it is stored and earlier state stays', async () => {
    const path = join(root, 'full.db');
    const saver = new SqliteSaver({ path });
    const store = createCheckpointSessionStore({ saver, kind: 'sqlite' });
    await store.appendMessages('s1', [{ id: 'u1', role: 'user', content: 'kept' }]);
    // SQLite's own "database or disk is full" (SQLITE_FULL), as a full disk gives it.
    const { database } = (saver as unknown as { driver: { database: DatabaseSync } }).driver;
    const pages = (database.prepare('PRAGMA page_count').get() as { page_count: number }).page_count;
    database.exec(`PRAGMA max_page_count = ${pages}`);
    const big = { id: 'u2', role: 'user' as const, content: randomBytes(400_000).toString('base64') };
    const error = await store.appendMessages('s1', [big]).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CtxloomError);
    expect(error).toMatchObject({ code: 'storage-error', file: path });
    expect((error as Error).message).toContain('database or disk is full');
    expect((await store.load('s1')).messages.map((message) => message.id)).toEqual(['u1']);
    database.exec('PRAGMA max_page_count = 1073741823');
    await store.appendMessages('s1', [big]);
    expect((await store.load('s1')).messages.map((message) => message.id)).toEqual(['u1', 'u2']);
    await saver.close();
  });
});
