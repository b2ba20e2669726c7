import { describe, expect, it } from 'vitest';
import { conversationMessages, isModelMessage } from './conversation-messages.ts';
import type { Message } from './message.ts';

const user = (id: string, text = id): Message => ({ id, role: 'user', content: text });
const answer = (id: string, text: string): Message => ({ id, role: 'assistant', content: text });
const failed = (id: string, turnId: string): Message => ({
  id,
  role: 'assistant',
  content: '',
  metadata: { turnError: { code: 'model-error', message: 'HTTP 429', turnId } },
});

describe('conversationMessages', () => {
  it('leaves out a failed turn that got no answer: its question and its error record', () => {
    const messages = [user('u1'), answer('a1', 'one'), user('u2'), failed('a2', 'u2'), user('u3')];
    expect(conversationMessages(messages).map((message) => message.id)).toEqual(['u1', 'a1', 'u3']);
  });

  it('keeps the question and the partial answer of a turn that failed mid-answer', () => {
    const partial: Message = { ...answer('a2', 'half'), metadata: { partial: true } };
    const messages = [user('u2'), partial, failed('a2.1', 'u2')];
    expect(conversationMessages(messages).map((message) => message.id)).toEqual(['u2', 'a2']);
  });

  it('leaves out the empty assistant messages older versions stored for a failed or stopped turn', () => {
    const empty: Message = { id: 'a1', role: 'assistant', content: '', metadata: { partial: true } };
    expect(isModelMessage(empty)).toBe(false);
    expect(isModelMessage({ ...empty, content: [] })).toBe(false);
    expect(isModelMessage({ ...empty, content: [{ type: 'text', text: '' }] })).toBe(false);
    expect(conversationMessages([user('u1'), empty, user('u2')]).map((message) => message.id)).toEqual([
      'u1',
      'u2',
    ]);
  });

  it('keeps an assistant message that only calls a tool', () => {
    const call: Message = {
      id: 'a1',
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'read_file', input: {} }],
    };
    expect(isModelMessage(call)).toBe(true);
  });
});
