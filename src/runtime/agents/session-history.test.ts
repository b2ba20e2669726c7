import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { conversationMessages } from '../../core/conversation-messages.ts';
import type { Message } from '../../core/index.ts';
import { fromLangChain } from '../../langchain/from-langchain.ts';
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

describe('agentHistory on a growing thread', () => {
  /** One stored message of a random kind: a question, an answer, tool calls and results (some orphaned), a failed turn, a command. */
  const stored = fc.oneof(
    fc.constant<Message>({ id: '', role: 'user', content: 'question' }),
    fc.constant<Message>({ id: '', role: 'assistant', content: 'answer' }),
    fc.constant<Message>({ id: '', role: 'assistant', content: '' }),
    fc.integer({ min: 0, max: 5 }).map<Message>((call) => ({
      id: '',
      role: 'assistant',
      content: [
        { type: 'tool-call', toolCallId: `c${call}`, toolName: 'read_file', input: { path: 'a.md' } },
      ],
    })),
    fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 2 }).map<Message>((calls) => ({
      id: '',
      role: 'tool',
      content: calls.map((call) => ({
        type: 'tool-result' as const,
        toolCallId: `c${call}`,
        toolName: 'read_file',
        output: { type: 'text' as const, value: `out ${call}` },
      })),
    })),
    fc.constant<Message>({
      id: '',
      role: 'assistant',
      content: '',
      metadata: { turnError: { code: 'model-error', message: 'failed', turnId: 'LAST_USER' } },
    }),
    fc.constant<Message>({ id: '', role: 'user', content: '/compress', metadata: { command: 'compress' } }),
  );

  /** What agentHistory read before it kept anything between calls: every message filtered, decoded and scanned. */
  const reference = (messages: readonly BaseMessage[]): Message[] => {
    const calls = new Set<string>();
    for (const message of messages)
      if (AIMessage.isInstance(message))
        for (const call of message.tool_calls ?? []) if (call.id) calls.add(call.id);
    const kept = messages.filter(
      (message) =>
        HumanMessage.isInstance(message) ||
        AIMessage.isInstance(message) ||
        (ToolMessage.isInstance(message) && calls.has(message.tool_call_id)),
    );
    return conversationMessages(fromLangChain(kept));
  };

  it('reads every prefix of the thread as reading it whole does', () => {
    fc.assert(
      fc.property(
        fc.array(stored, { minLength: 1, maxLength: 40 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 8 }),
        (made, cuts) => {
          let lastUser = 'none';
          const messages = made.map((message, index) => {
            const id = `m${index}`;
            if (message.role === 'user' && message.metadata?.command === undefined) lastUser = id;
            const turnError = message.metadata?.turnError as { turnId: string } | undefined;
            return turnError === undefined
              ? { ...message, id }
              : { ...message, id, metadata: { turnError: { ...turnError, turnId: lastUser } } };
          });
          const thread = toLangChain(messages);
          for (const cut of [...cuts, thread.length]) {
            const prefix = thread.slice(0, Math.max(1, cut % (thread.length + 1)));
            expect(agentHistory(new StateBuilder({ messages: prefix }), 'en')).toEqual(reference(prefix));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('decodes a tool message split in two once, when a read ends between its parts', () => {
    const call = (id: string): Message => ({
      id: `a-${id}`,
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: id, toolName: 'read_file', input: { path: `${id}.md` } }],
    });
    const result = (id: string) => ({
      type: 'tool-result' as const,
      toolCallId: id,
      toolName: 'read_file',
      output: { type: 'text' as const, value: `out ${id}` },
    });
    const thread = toLangChain([
      { id: 'u1', role: 'user', content: 'read both' },
      call('c1'),
      call('c2'),
      { id: 't1', role: 'tool', content: [result('c1'), result('c2')] },
    ]);
    expect(thread).toHaveLength(5);
    expect(agentHistory(new StateBuilder({ messages: thread.slice(0, 4) }), 'en')).toEqual(
      reference(thread.slice(0, 4)),
    );
    const whole = agentHistory(new StateBuilder({ messages: thread }), 'en');
    expect(whole).toEqual(reference(thread));
    expect(whole.map((message) => message.id)).toEqual(['u1', 'a-c1', 'a-c2', 't1']);
  });
});
