import { describe, expect, it } from 'vitest';
import type { Message, TokenCounter } from '../core/index.ts';
import { createCharCounter } from '../testing/index.ts';
import { createRecallSource, createSessionIndexes, indexedText } from './session-recall.ts';

/** A char counter that counts how many texts it was asked to count. */
function countingCounter(): TokenCounter & { texts: number } {
  const base = createCharCounter();
  const counter = {
    ...base,
    texts: 0,
    countText(text: string) {
      counter.texts++;
      return base.countText(text);
    },
  };
  return counter;
}

describe('recall', () => {
  it('formats and counts a stored message once, however many calls recall it (decision 061)', async () => {
    const messages = Array.from(
      { length: 40 },
      (_, index) =>
        Object.freeze({
          id: `m${index}`,
          role: index % 2 === 0 ? 'user' : 'assistant',
          content: index % 5 === 0 ? `the lighthouse keeper painted number ${index}` : `small talk ${index}`,
        }) as Message,
    );
    const index = createSessionIndexes().sync('s', messages);
    const byId = new Map(
      messages.map((message, position) => [message.id, { message, position: position + 1 }]),
    );
    const source = createRecallSource({ index, messages: byId, eligible: () => true, maxTokens: 10_000 });
    const counter = countingCounter();
    const request = { query: 'lighthouse painted', history: [], counter };
    const first = await source.collect(request, { maxTokens: 10_000, source: 'recall' });
    const counted = counter.texts;
    expect(first.map((block) => block.metadata.messageId)).toEqual(
      expect.arrayContaining(['m0', 'm5', 'm10', 'm35']),
    );
    expect(counted).toBeGreaterThanOrEqual(first.length);
    const second = await source.collect(request, { maxTokens: 10_000, source: 'recall' });
    expect(second).toEqual(first);
    expect(counter.texts).toBe(counted);
  });

  it('recalls what a tool message carries — its calls and short results — never an empty line (decision 072)', async () => {
    const call = (id: string, path: string): Message =>
      Object.freeze({
        id,
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: `c-${id}`, toolName: 'read_file', input: { path } }],
      }) as Message;
    const result = (id: string, value: string): Message =>
      Object.freeze({
        id,
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: `c-${id}`,
            toolName: 'read_file',
            output: { type: 'text', value },
          },
        ],
      }) as Message;
    const messages: Message[] = [
      Object.freeze({ id: 'u1', role: 'user', content: 'How tall is the lighthouse?' }) as Message,
      call('a1', 'lighthouse.md'),
      result('t1', 'The lighthouse is 40 m tall.'),
      Object.freeze({
        id: 'u2',
        role: 'user',
        content: 'And its whole history, the lighthouse logbook?',
      }) as Message,
      call('a2', 'logbook.md'),
      result('t2', 'entry '.repeat(100)),
      Object.freeze({ id: 'a3', role: 'assistant', content: 'The lighthouse was built in 1890.' }) as Message,
      Object.freeze({
        id: 'w1',
        role: 'assistant',
        content: [
          {
            type: 'tool-call',
            toolCallId: 'c-w1',
            toolName: 'write_file',
            input: { path: 'lighthouse.md', content: 'lighthouse '.repeat(60) },
          },
        ],
      }) as Message,
    ];
    const index = createSessionIndexes().sync('s', messages);
    const byId = new Map(
      messages.map((message, position) => [message.id, { message, position: position + 1 }]),
    );
    const source = createRecallSource({ index, messages: byId, eligible: () => true, maxTokens: 10_000 });
    const request = { query: 'lighthouse', history: [], counter: createCharCounter() };
    const blocks = await source.collect(request, { maxTokens: 10_000, source: 'recall' });
    const texts = new Map(blocks.map((block) => [block.metadata.messageId, block.content]));
    expect(texts.get('a1')).toBe('#2 assistant: read_file({"path":"lighthouse.md"})');
    expect(texts.get('t1')).toBe('#3 tool: read_file → The lighthouse is 40 m tall.');
    // 600 characters (tokens, with this counter) of a file: not recalled in part, not whole.
    expect(texts.has('t2')).toBe(false);
    // Nor a call whose input is a file.
    expect(texts.has('w1')).toBe(false);
    expect(texts.get('a2')).toBe('#5 assistant: read_file({"path":"logbook.md"})');
    for (const text of texts.values()) expect(text).not.toMatch(/: ?$/u);
  });

  it('indexes what a message carries: a tool call by its input, a short result by its words, a long one not at all', () => {
    const call: Message = {
      id: 'a1',
      role: 'assistant',
      content: [
        { type: 'tool-call', toolCallId: 'c1', toolName: 'read_file', input: { path: 'harbour.md' } },
      ],
    };
    const result = (id: string, value: string): Message => ({
      id,
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: 'c1', toolName: 'read_file', output: { type: 'text', value } },
      ],
    });
    expect(indexedText(call)).toBe('read_file({"path":"harbour.md"})');
    expect(indexedText(result('t1', 'The ferry leaves at nine.'))).toBe(
      'read_file → The ferry leaves at nine.',
    );
    expect(indexedText(result('t2', 'anchor '.repeat(1000)))).toBe('');
    const write: Message = {
      id: 'a2',
      role: 'assistant',
      content: [
        {
          type: 'tool-call',
          toolCallId: 'c2',
          toolName: 'write_file',
          input: { path: 'a.md', content: 'b '.repeat(3000) },
        },
      ],
    };
    expect(indexedText(write)).toBe('');
    // Indexed alone (no neighbours), each is found by what it carries.
    const index = createSessionIndexes().sync('s', [
      call,
      { id: 'u1', role: 'user', content: 'x '.repeat(50) },
      { id: 'u2', role: 'user', content: 'y '.repeat(50) },
      { id: 'u3', role: 'user', content: 'z '.repeat(50) },
      { id: 'u4', role: 'user', content: 'w '.repeat(50) },
      result('t1', 'The ferry leaves at nine.'),
    ]);
    expect(index.lexical.search('harbour', { limit: 3 }).map((hit) => hit.id)).toContain('a1');
    expect(index.lexical.search('ferry', { limit: 3 }).map((hit) => hit.id)).toContain('t1');
  });
});
