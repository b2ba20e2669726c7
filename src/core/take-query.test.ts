import { describe, expect, it } from 'vitest';
import { createCharCounter } from '../testing/index.ts';
import { compileContext } from './compile.ts';
import { layerOf } from './compose.ts';
import { type Message, messageText } from './message.ts';

const counter = createCharCounter();

const sentTexts = (messages: readonly Message[]) =>
  messages
    .filter((message) => layerOf(message) === 'history' || layerOf(message) === 'query')
    .map(messageText);

describe('the query enters once', () => {
  it('sends a message query with a new id and the text of the last history message once, with a warning', async () => {
    const history: Message[] = [
      { id: 'u1', role: 'user', content: 'hello' },
      { id: 'a1', role: 'assistant', content: 'hi' },
      { id: 'u2', role: 'user', content: 'What is Raft?' },
    ];
    const query: Message = { id: 'query-4-abc', role: 'user', content: 'What is Raft?' };
    const compiled = await compileContext({ history, query }, { counter, window: 4000 });
    expect(sentTexts(compiled.messages)).toEqual(['hello', 'hi', 'What is Raft?']);
    expect(compiled.query?.id).toBe('query-4-abc');
    expect(compiled.report.warnings).toEqual([
      expect.objectContaining({ code: 'query-repeated', messageId: 'u2' }),
    ]);
  });

  it('does not take a last message with the same text but another image as the query', async () => {
    const image = { type: 'file' as const, mediaType: 'image/png', data: 'AAAA' };
    const history: Message[] = [
      { id: 'u1', role: 'user', content: [{ type: 'text', text: 'this?' }, image] },
    ];
    const compiled = await compileContext({ history, query: 'this?' }, { counter, window: 4000 });
    expect(compiled.messages.map((message) => message.id)).toEqual(['u1', expect.stringMatching(/^query:/u)]);
    expect(compiled.report.warnings ?? []).toEqual([]);
  });

  it('keeps the first "yes" when a second "yes" arrives as a string query', async () => {
    const first = await compileContext({ query: 'yes' }, { counter, window: 4000 });
    const stored = first.query as Message;
    const history: Message[] = [
      { id: 'u0', role: 'user', content: 'Shall I deploy?' },
      { id: 'a0', role: 'assistant', content: 'Deploy to staging first?' },
      stored,
      { id: 'a1', role: 'assistant', content: 'Staging is up. Production too?' },
    ];
    const compiled = await compileContext({ history, query: 'yes' }, { counter, window: 4000 });
    expect(sentTexts(compiled.messages)).toEqual([
      'Shall I deploy?',
      'Deploy to staging first?',
      'yes',
      'Staging is up. Production too?',
      'yes',
    ]);
    const ids = compiled.messages.map((message) => message.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(compiled.query?.id).toBe(`${stored.id}:2`);
    expect(compiled.report.warnings ?? []).toEqual([]);
  });

  it('finds a free id past earlier collisions and still takes a history ending with the query', async () => {
    const history: Message[] = [
      { id: 'q', role: 'user', content: 'yes' },
      { id: 'a', role: 'assistant', content: 'ok' },
      { id: 'q:2', role: 'user', content: 'yes' },
      { id: 'b', role: 'assistant', content: 'ok' },
    ];
    const query: Message = { id: 'q', role: 'user', content: 'yes' };
    const compiled = await compileContext({ history, query }, { counter, window: 4000 });
    expect(compiled.messages.map((message) => message.id)).toEqual(['q', 'a', 'q:2', 'b', 'q:3']);
    const again = await compileContext(
      { history: [...history, { id: 'q:3', role: 'user', content: 'yes' }], query: { ...query, id: 'q:3' } },
      { counter, window: 4000 },
    );
    expect(again.messages.map((message) => message.id)).toEqual(['q', 'a', 'q:2', 'b', 'q:3']);
    expect(again.report.warnings ?? []).toEqual([]);
  });
});
