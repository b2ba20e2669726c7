import { describe, expect, it } from 'vitest';
import { CtxloomError } from '../core/index.ts';
import { createCompressionState } from './compression-state.ts';
import type { CompressionStore } from './compression-store.ts';
import { formatThreadId } from './thread-id.ts';

/**
 * The behaviour every {@link CompressionStore} must have, as a Vitest suite — run against the
 * memory and SQLite stores here and meant for the StateBuilder-backed one: sessions and users
 * with the same session id never see each other's state, revisions increase by one and stale
 * writes throw `conflict`, loaded values are copies, and a saved state round-trips exactly.
 * Not exported from `ctxloom/compression` (it imports Vitest); import it by path in tests.
 * @example describeCompressionStoreConformance('sqlite', () => createSqliteCompressionStore({ database }));
 */
export function describeCompressionStoreConformance(
  name: string,
  createStore: () => CompressionStore | Promise<CompressionStore>,
): void {
  const app = `conf${Math.floor(Math.random() * 1e9)}`;
  const alice1 = formatThreadId({ app, userId: 'alice', sessionId: 's1' });
  const alice2 = formatThreadId({ app, userId: 'alice', sessionId: 's2' });
  const bob1 = formatThreadId({ app, userId: 'bob', sessionId: 's1' });

  describe(`CompressionStore conformance: ${name}`, () => {
    it('keeps sessions and users with the same session id apart', async () => {
      const store = await createStore();
      const state = { ...createCompressionState({ threadId: alice1 }), forceContextClipping: true };
      await store.save(state, { expectedRevision: null });
      expect((await store.load(alice1))?.forceContextClipping).toBe(true);
      expect(await store.load(alice2)).toBeUndefined();
      expect(await store.load(bob1)).toBeUndefined();
      await store.save(createCompressionState({ threadId: bob1 }), { expectedRevision: null });
      expect((await store.load(bob1))?.forceContextClipping).toBe(false);
      expect((await store.load(alice1))?.forceContextClipping).toBe(true);
    });

    it('increments the revision and refuses writes based on a stale one', async () => {
      const store = await createStore();
      const first = await store.save(createCompressionState({ threadId: alice2 }), {
        expectedRevision: null,
      });
      expect(first.revision).toBe(0);
      const second = await store.save(first, { expectedRevision: 0 });
      expect(second.revision).toBe(1);
      await expect(store.save(first, { expectedRevision: 0 })).rejects.toSatisfy((error) =>
        CtxloomError.is(error, 'conflict'),
      );
      await expect(
        store.save(createCompressionState({ threadId: alice2 }), { expectedRevision: null }),
      ).rejects.toSatisfy((error) => CtxloomError.is(error, 'conflict'));
    });

    it('returns copies and round-trips a saved state exactly', async () => {
      const store = await createStore();
      const threadId = formatThreadId({ app, userId: 'carol', sessionId: 's1' });
      const state = createCompressionState({ threadId });
      state.requirements.openQuestions.push({
        id: 'Q1',
        text: '输出表是否按 dt 分区？',
        source: 'clarification',
        proposedOps: [],
        confidence: 0.5,
        anchor: { turnIndex: 0, messageId: 'u0', quote: '分区' },
        status: 'open',
      });
      const saved = await store.save(state, { expectedRevision: null });
      const loaded = await store.load(threadId);
      expect(loaded).toEqual(saved);
      loaded?.requirements.openQuestions.pop();
      expect((await store.load(threadId))?.requirements.openQuestions).toHaveLength(1);
    });
  });
}
