import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { CtxloomError } from '../core/index.ts';
import { createCompressionState } from './compression-state.ts';
import { type CompressionStore, createMemoryCompressionStore } from './compression-store.ts';
import { createSqliteCompressionStore } from './sqlite-compression-store.ts';
import { formatThreadId } from './thread-id.ts';

const databases: DatabaseSync[] = [];
afterEach(() => {
  for (const database of databases.splice(0)) database.close();
});

const implementations: [string, () => CompressionStore][] = [
  ['memory', createMemoryCompressionStore],
  [
    'sqlite',
    () => {
      const database = new DatabaseSync(':memory:');
      databases.push(database);
      return createSqliteCompressionStore({ database, table: `compression_${databases.length}` });
    },
  ],
];

describe.each(implementations)('CompressionStore (%s)', (_name, createStore) => {
  const alice1 = formatThreadId({ app: 'etl', userId: 'alice', sessionId: 's1' });
  const alice2 = formatThreadId({ app: 'etl', userId: 'alice', sessionId: 's2' });
  const bob1 = formatThreadId({ app: 'etl', userId: 'bob', sessionId: 's1' });

  it('keeps sessions and users with the same session id apart', async () => {
    const store = createStore();
    const state = createCompressionState({ threadId: alice1 });
    state.forceContextClipping = true;
    await store.save(state, { expectedRevision: null });
    expect((await store.load(alice1))?.forceContextClipping).toBe(true);
    expect(await store.load(alice2)).toBeUndefined();
    expect(await store.load(bob1)).toBeUndefined();
    await store.save(createCompressionState({ threadId: bob1 }), { expectedRevision: null });
    expect((await store.load(bob1))?.forceContextClipping).toBe(false);
    expect((await store.load(alice1))?.forceContextClipping).toBe(true);
  });

  it('increments the revision and refuses writes based on a stale one', async () => {
    const store = createStore();
    const first = await store.save(createCompressionState({ threadId: alice1 }), { expectedRevision: null });
    expect(first.revision).toBe(0);
    const second = await store.save(first, { expectedRevision: 0 });
    expect(second.revision).toBe(1);
    await expect(store.save(first, { expectedRevision: 0 })).rejects.toSatisfy((error) =>
      CtxloomError.is(error, 'conflict'),
    );
    await expect(
      store.save(createCompressionState({ threadId: alice1 }), { expectedRevision: null }),
    ).rejects.toThrow(/revision 1/);
  });

  it('returns copies, so mutating a loaded state changes nothing stored', async () => {
    const store = createStore();
    await store.save(createCompressionState({ threadId: alice1 }), { expectedRevision: null });
    const loaded = await store.load(alice1);
    loaded!.requirements.openQuestions.push({
      id: 'Q1',
      text: 'x',
      source: 'clarification',
      proposedOps: [],
      confidence: null,
      anchor: null,
      status: 'open',
    });
    expect((await store.load(alice1))?.requirements.openQuestions).toEqual([]);
  });
});
