import { describe, expect, it } from 'vitest';
import type { Message } from '../../core/index.ts';
import { toLangChain } from '../../langchain/index.ts';
import { StateBuilder } from '../../state/index.ts';
import { agentHistory } from './session-history.ts';

/** What a chat turn stores: a picture, two tool calls answered in one tool message, the answer. */
const CHAT_TURN: Message[] = [
  {
    id: 'u1',
    role: 'user',
    content: [
      { type: 'text', text: 'What is on this slide?' },
      { type: 'file', mediaType: 'image/png', data: 'iVBORw0KGgo=', filename: 'slide.png' },
    ],
    metadata: { createdAt: '2026-03-01T10:00:00.000Z' },
  },
  {
    id: 'a1',
    role: 'assistant',
    content: [
      { type: 'tool-call', toolCallId: 'c1', toolName: 'read_file', input: { path: 'a.md' } },
      { type: 'tool-call', toolCallId: 'c2', toolName: 'read_file', input: { path: 'b.md' } },
    ],
  },
  {
    id: 't1',
    role: 'tool',
    content: [
      { type: 'tool-result', toolCallId: 'c1', toolName: 'read_file', output: { type: 'text', value: 'A' } },
      { type: 'tool-result', toolCallId: 'c2', toolName: 'read_file', output: { type: 'text', value: 'B' } },
    ],
  },
  { id: 'a2', role: 'assistant', content: 'A raft log, with terms.' },
];

describe('agentHistory', () => {
  it('reads what the session store wrote exactly as the chat compile does: parts, every tool result, metadata', () => {
    const sb = new StateBuilder({ messages: toLangChain(CHAT_TURN) });
    expect(agentHistory(sb, 'en')).toEqual(CHAT_TURN);
  });

  it('leaves out commands, and a failed turn’s question with its error record', () => {
    const stored: Message[] = [
      { id: 'u1', role: 'user', content: 'hello' },
      {
        id: 'e1',
        role: 'assistant',
        content: 'model failed',
        metadata: { turnError: { turnId: 'u1', code: 'model-error', message: 'model failed' } },
      },
      { id: 'c1', role: 'user', content: '/compress', metadata: { command: 'compress' } },
      { id: 'u2', role: 'user', content: 'hello again' },
    ];
    const sb = new StateBuilder({ messages: toLangChain(stored) });
    expect(agentHistory(sb, 'en').map((message) => message.id)).toEqual(['u2']);
  });

  it('decodes each LangChain message once: every call shares the frozen message, so per-message memos hold', () => {
    const messages = toLangChain(CHAT_TURN);
    const first = agentHistory(new StateBuilder({ messages }), 'en');
    // A later call (the next step, the next turn) on a state holding the same message objects.
    const second = agentHistory(new StateBuilder({ messages: [...messages] }), 'en');
    expect(second).not.toBe(first);
    expect(second).toEqual(CHAT_TURN);
    for (const [index, message] of second.entries()) expect(message).toBe(first[index]);
    expect(Object.isFrozen(first[2]?.content)).toBe(true);
    // The LangChain messages stay the caller's to change.
    expect(Object.isFrozen(messages[0])).toBe(false);
  });
});
