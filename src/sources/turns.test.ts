import { describe, expect, it } from 'vitest';
import type { Message } from '../core/index.ts';
import { groupTurns } from './turns.ts';

const call = (id: string, callId: string): Message => ({
  id,
  role: 'assistant',
  content: [{ type: 'tool-call', toolCallId: callId, toolName: 'search', input: {} }],
});
const result = (id: string, callId: string): Message => ({
  id,
  role: 'tool',
  content: [
    { type: 'tool-result', toolCallId: callId, toolName: 'search', output: { type: 'text', value: 'ok' } },
  ],
});

describe('groupTurns', () => {
  it('starts a turn at every user message', () => {
    const turns = groupTurns([
      { id: 'u1', role: 'user', content: 'a' },
      { id: 'a1', role: 'assistant', content: 'b' },
      { id: 'u2', role: 'user', content: 'c' },
    ]);
    expect(turns.map((turn) => turn.messages.map((message) => message.id))).toEqual([['u1', 'a1'], ['u2']]);
  });

  it('keeps a tool call and its late result in one turn', () => {
    const turns = groupTurns([
      { id: 'u1', role: 'user', content: 'a' },
      call('c1', 't1'),
      { id: 'u2', role: 'user', content: 'still there?' },
      result('r1', 't1'),
    ]);
    expect(turns).toHaveLength(1);
    expect(turns[0]?.messages.map((message) => message.id)).toEqual(['u1', 'c1', 'u2', 'r1']);
  });

  it('never loses or reorders messages', () => {
    const messages: Message[] = [
      { id: 's', role: 'system', content: 'x' },
      { id: 'u1', role: 'user', content: 'a' },
      call('c1', 't1'),
      result('r1', 't1'),
      { id: 'u2', role: 'user', content: 'b' },
    ];
    expect(groupTurns(messages).flatMap((turn) => turn.messages)).toEqual(messages);
  });
});
