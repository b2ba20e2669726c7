import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresSaver } from '../runtime/checkpoint/postgres-saver.ts';
import { createCheckpointSessionStore } from './checkpoint-session-store.ts';
import { createPostgresThreadLock } from './postgres-thread-lock.ts';
import type { ThreadLock } from './thread-lock.ts';

const url = process.env.CTXLOOM_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `ctxloom_thread_lock_${process.pid}_${Date.now().toString(36)}`;
const saver = new PostgresSaver({ connectionString: url, schema });
// Two locks on their own pools: two processes, as far as PostgreSQL can tell.
const holder = createPostgresThreadLock({ connectionString: url, scope: schema });
const waiter = createPostgresThreadLock({ connectionString: url, scope: schema, waitMs: 150 });

afterAll(async () => {
  await Promise.all([holder.close(), waiter.close(), saver.close()]);
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.end();
});

/** Holds `threadId` with `lock` until `release()` is called; resolves `held` once it is. */
function hold(lock: ThreadLock, threadId: string) {
  let release: () => void = () => undefined;
  let markHeld: () => void = () => undefined;
  const held = new Promise<void>((resolve) => {
    markHeld = resolve;
  });
  const done = lock.run(threadId, async () => {
    markHeld();
    await new Promise<void>((resolve) => {
      release = resolve;
    });
  });
  return { held, done, release: () => release() };
}

const threadBusy = { code: 'conflict', path: 'sessionId', details: { reason: 'thread-busy' } };

describe('createPostgresThreadLock', () => {
  it('gives up on a thread another process holds after waitMs (conflict, thread-busy) without running the write', async () => {
    const other = hold(holder, 'busy');
    await other.held;
    let ran = false;
    await expect(
      waiter.run('busy', async () => {
        ran = true;
      }),
    ).rejects.toMatchObject(threadBusy);
    expect(ran).toBe(false);
    // Another thread is not held; the held one is free once its holder is done.
    expect(await waiter.run('other', async () => 'written')).toBe('written');
    other.release();
    await other.done;
    expect(await waiter.run('busy', async () => 'written')).toBe('written');
  });

  it('refuses a write when every connection of its pool is held (storage-error, pool-exhausted), and runs none of it', async () => {
    const small = createPostgresThreadLock({
      connectionString: url,
      scope: schema,
      maxConnections: 2,
      connectionTimeoutMs: 500,
    });
    try {
      // Two running writes on two threads hold both connections (each holds its lease's).
      const first = hold(small, 'pool-1');
      await first.held;
      const second = hold(small, 'pool-2');
      await second.held;
      let ran = false;
      const error = await small
        .run('pool-3', async () => {
          ran = true;
        })
        .catch((caught: unknown) => caught);
      expect(error).toMatchObject({
        name: 'CtxloomError',
        code: 'storage-error',
        details: { reason: 'pool-exhausted', maxConnections: 2, connectionTimeoutMs: 500 },
      });
      expect((error as Error).message).toMatch(/all 2 connections of the pool/u);
      expect(ran).toBe(false);
      first.release();
      second.release();
      await Promise.all([first.done, second.done]);
      // The pool is whole again: the refused write runs once a connection is free.
      expect(await small.run('pool-3', async () => 'written')).toBe('written');
    } finally {
      await small.close();
    }
  });

  it('refuses a pool size outside 1..64 (invalid-argument naming it), where it used to clamp it or open a pool of NaN', () => {
    for (const maxConnections of [0, -1, 1.5, 65, Number.NaN]) {
      expect(() =>
        createPostgresThreadLock({ connectionString: url, scope: schema, maxConnections }),
      ).toThrow(expect.objectContaining({ code: 'invalid-argument', path: 'maxConnections' }));
    }
  });

  it('refuses a connectionTimeoutMs that would not bound the wait (invalid-argument naming it)', () => {
    for (const connectionTimeoutMs of [0, -1, 1.5, Number.POSITIVE_INFINITY, 2 ** 31]) {
      expect(() =>
        createPostgresThreadLock({ connectionString: url, scope: schema, connectionTimeoutMs }),
      ).toThrow(expect.objectContaining({ code: 'invalid-argument', path: 'connectionTimeoutMs' }));
    }
  });

  it('bounds a store write beside another process’s process turn (`exclusive`): conflict, nothing stored', async () => {
    await saver.setup();
    const turnStore = createCheckpointSessionStore({ saver, kind: 'postgres', lock: holder });
    const writeStore = createCheckpointSessionStore({ saver, kind: 'postgres', lock: waiter });
    await writeStore.appendMessages('s1', [{ id: 'u1', role: 'user', content: 'kept' }]);
    const turn = hold(
      { run: (threadId, work) => turnStore.exclusive(threadId, work), close: async () => {} },
      's1',
    );
    await turn.held;
    await expect(
      writeStore.appendMessages('s1', [{ id: 'u2', role: 'user', content: 'refused' }]),
    ).rejects.toMatchObject(threadBusy);
    await expect(
      writeStore.appendCuration('s1', [
        {
          id: 'c1',
          type: 'dismiss',
          targetMessageId: 'u1',
          by: 'user',
          at: '2026-01-01T00:00:00.000Z',
          summary: 'refused too',
        },
      ]),
    ).rejects.toMatchObject(threadBusy);
    turn.release();
    await turn.done;
    const state = await writeStore.load('s1');
    expect(state.messages.map((message) => message.id)).toEqual(['u1']);
    expect(state.curation).toEqual([]);
  });
});
