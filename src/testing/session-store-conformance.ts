import { describe, expect, it } from 'vitest';
import { createCompressionState, registerArtifact } from '../compression/index.ts';
import type { CompileReport, Message } from '../core/index.ts';
import {
  CALL_LOG_CAPACITY,
  type CallRecord,
  type CurationEvent,
  type SessionStore,
} from '../session/index.ts';

/** Options of {@link describeSessionStoreConformance}. */
export interface SessionStoreConformanceOptions {
  /**
   * A session id the store may use; called once per test so tests never share state. The
   * files adapter needs the folder to exist, so the factory creates it.
   */
  newSession: () => string | Promise<string>;
  /** The call capacity the factory's stores were built with. Default {@link CALL_LOG_CAPACITY}. */
  callCapacity?: number;
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
 * for a new session, messages kept in order with their parts, duplicate and reserved ids
 * refused with nothing stored, curation batches validated whole, compression saved with optimistic
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
      const result: Message = {
        id: 'r1',
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 't1',
            toolName: 'read_file',
            output: { type: 'text', value: 'x' },
          },
        ],
      };
      await store.appendMessages(id, [message('u1')]);
      await store.appendMessages(id, [tool, result]);
      const state = await store.load(id);
      expect(state.messages.map((m) => m.id)).toEqual(['u1', 'a1', 'r1']);
      expect(state.messages[1]).toEqual(tool);
      expect(state.messages[2]).toEqual(result);
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

    it('refuses a batch with an id of the layer: namespace (invalid-argument at <index>.id) and stores none of it', async () => {
      const store = await factory();
      const id = await options.newSession();
      await store.appendMessages(id, [message('u1')]);
      await expect(
        store.appendMessages(id, [message('u2'), message('layer:system', 'assistant')]),
      ).rejects.toMatchObject({ code: 'invalid-argument', path: '1.id' });
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

    it('refuses a curation event of the wrong shape (invalid-argument), stores none of the batch, and still loads', async () => {
      const store = await factory();
      const id = await options.newSession();
      await store.appendMessages(id, [message('u1')]);
      const bad = { ...curation('e2', 'u1'), type: 'hide' } as unknown as CurationEvent;
      await expect(store.appendCuration(id, [curation('e1', 'u1'), bad])).rejects.toMatchObject({
        code: 'invalid-argument',
        path: '1.type',
      });
      expect((await store.load(id)).curation).toEqual([]);
      await store.appendCuration(id, [curation('e1', 'u1')]);
      expect((await store.load(id)).curation.map((event) => event.id)).toEqual(['e1']);
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

    it('deletes a session whole: the same id starts empty, other sessions are untouched', async () => {
      const store = await factory();
      const id = await options.newSession();
      const other = await options.newSession();
      await store.appendMessages(id, [message('a1'), message('a2', 'assistant')]);
      await store.appendCuration(id, [curation('e1', 'a2')]);
      await store.saveCompression(
        id,
        { summary: null, structured: null, processedThrough: { requirements: 'a1', artifacts: null } },
        { expectedRevision: 0 },
      );
      await store.appendCall(id, call('c1'));
      await store.appendMessages(other, [message('b1')]);
      await store.deleteSession(id);
      const state = await store.load(id);
      expect(state).toMatchObject({ messages: [], curation: [], compression: { revision: 0 } });
      expect(await store.listCalls(id)).toEqual([]);
      await store.deleteSession(id); // idempotent
      await store.appendMessages(id, [message('a1')]);
      expect((await store.load(id)).messages.map((entry) => entry.id)).toEqual(['a1']);
      expect((await store.load(other)).messages.map((entry) => entry.id)).toEqual(['b1']);
    });

    it('round-trips every part kind, name and metadata exactly', async () => {
      const store = await factory();
      const id = await options.newSession();
      const messages: Message[] = [
        { id: 's1', role: 'system', content: 'You help.' },
        {
          id: 'u1',
          role: 'user',
          name: 'ada',
          content: [
            { type: 'text', text: 'look at this' },
            { type: 'file', data: 'aGVsbG8=', mediaType: 'text/plain', filename: 'hello.txt' },
          ],
          metadata: { createdAt: '2026-01-01T00:00:00.000Z', tags: ['a', 'b'], nested: { n: 1, ok: true } },
        },
        {
          id: 'a1',
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'the user wants the file read' },
            { type: 'text', text: 'Reading it.' },
            { type: 'tool-call', toolCallId: 't1', toolName: 'read_file', input: { path: 'hello.txt' } },
            { type: 'tool-call', toolCallId: 't2', toolName: 'echo', input: 'raw string input' },
            { type: 'tool-call', toolCallId: 't3', toolName: 'screenshot', input: {} },
          ],
        },
        {
          id: 'r1',
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 't1',
              toolName: 'read_file',
              output: { type: 'json', value: { lines: 1 } },
            },
            {
              type: 'tool-result',
              toolCallId: 't2',
              toolName: 'echo',
              output: { type: 'error-text', value: 'denied' },
            },
            {
              type: 'tool-result',
              toolCallId: 't3',
              toolName: 'screenshot',
              output: {
                type: 'content',
                value: [
                  { type: 'text', text: 'the page' },
                  { type: 'image-data', data: 'aGVsbG8=', mediaType: 'image/png' },
                ],
              },
            },
          ],
        },
        { id: 'a2', role: 'assistant', content: '' },
        { id: 'u2', role: 'user', content: 'unicode ✓ 中文 \u0001 "quotes"' },
      ];
      await store.appendMessages(id, messages);
      expect((await store.load(id)).messages).toEqual(messages);
    });

    it('stores concurrent appends one after another: none lost, none duplicated', async () => {
      const store = await factory();
      const id = await options.newSession();
      const ids = Array.from({ length: 12 }, (_, index) => `m${index}`);
      const results = await Promise.allSettled([
        ...ids.map((messageId) => store.appendMessages(id, [message(messageId)])),
        store.appendMessages(id, [message('m0')]),
      ]);
      expect(results.filter((result) => result.status === 'rejected')).toHaveLength(1);
      const stored = (await store.load(id)).messages.map((m) => m.id);
      expect([...stored].sort()).toEqual([...ids].sort());
    });

    it('lets exactly one of two saves at the same revision win', async () => {
      const store = await factory();
      const id = await options.newSession();
      await store.appendMessages(id, [message('u1')]);
      const results = await Promise.allSettled([
        store.saveCompression(
          id,
          { summary: null, structured: null, processedThrough: { requirements: null, artifacts: null } },
          { expectedRevision: 0 },
        ),
        store.saveCompression(
          id,
          { summary: null, structured: null, processedThrough: { requirements: null, artifacts: null } },
          { expectedRevision: 0 },
        ),
      ]);
      expect(results.map((result) => result.status).sort()).toEqual(['fulfilled', 'rejected']);
      expect((await store.load(id)).compression.revision).toBe(1);
    });

    it('round-trips the structured compression state (requirement TODO, artifact index)', async () => {
      const store = await factory();
      const id = await options.newSession();
      await store.appendMessages(id, [message('u1')]);
      const empty = createCompressionState({ threadId: 'app:user:u:session:s' });
      const { state: artifacts } = registerArtifact(
        empty.artifacts,
        { kind: 'sql', name: 'daily', agentId: 'writer', content: 'SELECT 1', turnIndex: 0 },
        { clock: () => 1_767_225_600_000 },
      );
      const structured = { ...empty, artifacts, forceContextClipping: true, clippingScope: 'all' as const };
      await store.saveCompression(
        id,
        { summary: null, structured, processedThrough: { requirements: null, artifacts: null } },
        { expectedRevision: 0 },
      );
      expect((await store.load(id)).compression).toEqual({
        revision: 1,
        summary: null,
        structured,
        processedThrough: { requirements: null, artifacts: null },
      });
    });

    it('keeps exactly the newest calls up to its capacity', async () => {
      const store = await factory();
      const id = await options.newSession();
      const capacity = options.callCapacity ?? CALL_LOG_CAPACITY;
      const total = capacity + 3;
      for (let index = 0; index < total; index++) await store.appendCall(id, call(`c${index}`, index));
      const calls = await store.listCalls(id, { limit: 1000 });
      expect(calls.map((record) => record.id)).toEqual(
        Array.from({ length: capacity }, (_, index) => `c${total - capacity + index}`),
      );
    });

    it('returns copies or frozen values and keeps sessions apart', async () => {
      const store = await factory();
      const first = await options.newSession();
      const second = await options.newSession();
      await store.appendMessages(first, [message('u1')]);
      const loaded = await store.load(first);
      // A store may hand out frozen messages it shares with its cache: changing one throws.
      try {
        (loaded.messages[0] as Message).content = 'changed';
      } catch (error) {
        expect(error).toBeInstanceOf(TypeError);
        expect(Object.isFrozen(loaded.messages[0])).toBe(true);
      }
      loaded.messages.push(message('x'));
      expect((await store.load(first)).messages).toEqual([message('u1')]);
      expect((await store.load(second)).messages).toEqual([]);
      // Call records the same way: copies, or frozen records the listings share.
      await store.appendCall(first, call('c1'));
      const listed = await store.listCalls(first);
      try {
        (listed[0] as CallRecord).model = 'changed';
      } catch (error) {
        expect(error).toBeInstanceOf(TypeError);
        expect(Object.isFrozen(listed[0])).toBe(true);
      }
      listed.pop();
      expect(await store.listCalls(first)).toEqual([call('c1')]);
      expect(await store.listCalls(second)).toEqual([]);
    });
  });
}
