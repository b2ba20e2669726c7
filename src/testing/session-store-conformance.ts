import { describe, expect, it } from 'vitest';
import type { CompileReport, Message } from '../core/index.ts';
import type { CallRecord, CurationEvent, SessionStore } from '../session/index.ts';

/** Options of {@link describeSessionStoreConformance}. */
export interface SessionStoreConformanceOptions {
  /**
   * A session id the store may use; called once per test so tests never share state. The
   * files adapter needs the folder to exist, so the factory creates it.
   */
  newSession: () => string | Promise<string>;
}

const message = (id: string, role: Message['role'] = 'user', content = `text of ${id}`): Message => ({
  id,
  role,
  content,
});

const curation = (
  id: string,
  targetMessageId: string,
  type: CurationEvent['type'] = 'dismiss',
): CurationEvent => ({
  id,
  type,
  targetMessageId,
  by: 'user',
  at: '2026-01-01T00:00:00.000Z',
  summary: `why ${id}`,
});

const report = { totalTokens: 42 } as unknown as CompileReport;
const call = (id: string, step = 0): CallRecord => ({
  id,
  turnId: 'u1',
  step,
  at: '2026-01-01T00:00:00.000Z',
  model: 'offline',
  report,
  messageFingerprints: [`user:${id}`],
});

/**
 * The behaviour every `SessionStore` adapter must have, as a Vitest suite: an empty state
 * for a new session, messages kept in order with their parts, duplicate ids refused with
 * nothing stored, curation batches validated whole, compression saved with optimistic
 * revisions (the summary keeps its coverage), a bounded call log, copies on load, and no
 * state shared between sessions.
 * @example describeSessionStoreConformance('files', () => createFileSessionStore({ workspace }), { newSession });
 */
export function describeSessionStoreConformance(
  name: string,
  factory: () => SessionStore | Promise<SessionStore>,
  options: SessionStoreConformanceOptions,
): void {
  describe(`SessionStore conformance: ${name}`, () => {
    it('loads an empty state for a session with nothing stored', async () => {
      const store = await factory();
      const id = await options.newSession();
      const state = await store.load(id);
      expect(state).toMatchObject({ sessionId: id, messages: [], curation: [] });
      expect(state.compression).toEqual({
        revision: 0,
        summary: null,
        structured: null,
        processedThrough: { requirements: null, artifacts: null },
      });
      expect(await store.listCalls(id)).toEqual([]);
    });

    it('appends messages in order and keeps their parts and metadata', async () => {
      const store = await factory();
      const id = await options.newSession();
      const tool: Message = {
        id: 'a1',
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 't1', toolName: 'read_file', input: { path: 'x.md' } }],
        metadata: { createdAt: '2026-01-01T00:00:00.000Z' },
      };
      await store.appendMessages(id, [message('u1')]);
      await store.appendMessages(id, [tool, message('r1', 'tool', 'result')]);
      const state = await store.load(id);
      expect(state.messages.map((m) => m.id)).toEqual(['u1', 'a1', 'r1']);
      expect(state.messages[1]).toEqual(tool);
    });

    it('refuses a batch with a stored or repeated id and stores none of it', async () => {
      const store = await factory();
      const id = await options.newSession();
      await store.appendMessages(id, [message('u1')]);
      await expect(store.appendMessages(id, [message('u2'), message('u1')])).rejects.toMatchObject({
        code: 'conflict',
      });
      await expect(store.appendMessages(id, [message('u3'), message('u3')])).rejects.toMatchObject({
        code: 'conflict',
      });
      expect((await store.load(id)).messages.map((m) => m.id)).toEqual(['u1']);
    });

    it('validates a curation batch whole: one unknown target stores nothing', async () => {
      const store = await factory();
      const id = await options.newSession();
      await store.appendMessages(id, [message('u1'), message('a1', 'assistant')]);
      await expect(
        store.appendCuration(id, [curation('e1', 'u1'), curation('e2', 'nope')]),
      ).rejects.toMatchObject({ code: 'not-found' });
      expect((await store.load(id)).curation).toEqual([]);
      await store.appendCuration(id, [curation('e1', 'u1'), curation('e2', 'a1', 'exclude')]);
      await store.appendCuration(id, [curation('e3', 'u1', 'restore')]);
      expect((await store.load(id)).curation.map((event) => event.id)).toEqual(['e1', 'e2', 'e3']);
    });

    it('saves compression with optimistic revisions and keeps the summary coverage', async () => {
      const store = await factory();
      const id = await options.newSession();
      await store.appendMessages(id, [message('u1'), message('a1', 'assistant'), message('u2')]);
      const summary = {
        text: 'Earlier: the user asked about x.',
        fromMessageId: 'u1',
        throughMessageId: 'a1',
        coveredCount: 2,
        summarizer: 'extractive (offline)',
        createdAt: '2026-01-01T00:00:00.000Z',
      };
      const saved = await store.saveCompression(
        id,
        { summary, structured: null, processedThrough: { requirements: 'a1', artifacts: null } },
        { expectedRevision: 0 },
      );
      expect(saved.revision).toBe(1);
      await expect(
        store.saveCompression(
          id,
          { summary: null, structured: null, processedThrough: { requirements: null, artifacts: null } },
          { expectedRevision: 0 },
        ),
      ).rejects.toMatchObject({ code: 'conflict' });
      const state = await store.load(id);
      expect(state.compression).toEqual({
        revision: 1,
        summary,
        structured: null,
        processedThrough: { requirements: 'a1', artifacts: null },
      });
    });

    it('keeps the newest calls, oldest first, within the limit asked', async () => {
      const store = await factory();
      const id = await options.newSession();
      for (let index = 0; index < 5; index++) await store.appendCall(id, call(`c${index}`, index));
      expect((await store.listCalls(id)).map((record) => record.id)).toEqual(['c0', 'c1', 'c2', 'c3', 'c4']);
      expect((await store.listCalls(id, { limit: 2 })).map((record) => record.id)).toEqual(['c3', 'c4']);
      expect((await store.listCalls(id))[0]).toEqual(call('c0', 0));
    });

    it('returns copies and keeps sessions apart', async () => {
      const store = await factory();
      const first = await options.newSession();
      const second = await options.newSession();
      await store.appendMessages(first, [message('u1')]);
      const loaded = await store.load(first);
      (loaded.messages[0] as Message).content = 'changed';
      loaded.messages.push(message('x'));
      expect((await store.load(first)).messages).toEqual([message('u1')]);
      expect((await store.load(second)).messages).toEqual([]);
    });
  });
}
