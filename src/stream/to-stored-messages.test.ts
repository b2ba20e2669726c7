import type { UIMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { INTERRUPTED_TOOL_OUTPUT, toStoredMessages } from './to-stored-messages.ts';
import { toUiMessages } from './to-ui-messages.ts';

const answer: UIMessage = {
  id: 'a1',
  role: 'assistant',
  parts: [
    { type: 'data-context-report', data: { ignored: true } } as unknown as UIMessage['parts'][number],
    { type: 'step-start' },
    { type: 'text', text: 'Reading ', state: 'done' },
    { type: 'text', text: 'guidance.md.', state: 'done' },
    {
      type: 'tool-read_file',
      toolCallId: 'c1',
      state: 'output-available',
      input: { path: 'guidance.md' },
      output: '1\t# Guide',
    },
    { type: 'step-start' },
    { type: 'text', text: 'It says: Guide.', state: 'done' },
  ],
};

describe('toStoredMessages', () => {
  it('splits steps into assistant and tool messages and merges consecutive text', () => {
    const stored = toStoredMessages(answer, { createdAt: '2026-03-01T00:00:00.000Z' });
    expect(stored.map((message) => [message.id, message.role])).toEqual([
      ['a1', 'assistant'],
      ['a1.1', 'tool'],
      ['a1.2', 'assistant'],
    ]);
    expect(stored[0]?.content).toEqual([
      { type: 'text', text: 'Reading guidance.md.' },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'read_file', input: { path: 'guidance.md' } },
    ]);
    expect(stored[1]?.content).toEqual([
      {
        type: 'tool-result',
        toolCallId: 'c1',
        toolName: 'read_file',
        output: { type: 'text', value: '1\t# Guide' },
      },
    ]);
  });

  it('marks a partial answer and closes unfinished tool calls with an error result', () => {
    const cut: UIMessage = {
      id: 'a2',
      role: 'assistant',
      parts: [
        { type: 'step-start' },
        { type: 'text', text: 'Read', state: 'streaming' },
        { type: 'tool-search', toolCallId: 'c2', state: 'input-available', input: { pattern: 'x' } },
      ],
    };
    const stored = toStoredMessages(cut, { createdAt: 't', partial: true });
    expect(stored.every((message) => message.metadata?.partial === true)).toBe(true);
    expect(stored[1]?.content).toEqual([
      {
        type: 'tool-result',
        toolCallId: 'c2',
        toolName: 'search',
        output: { type: 'error-text', value: INTERRUPTED_TOOL_OUTPUT },
      },
    ]);
  });
});

describe('toUiMessages', () => {
  it('regroups a stored turn into one UI message with the same text and tool output', () => {
    const stored = toStoredMessages(answer, {
      createdAt: 't',
      metadata: { context: { totalTokens: 5, inputBudget: 9, references: [] } },
    });
    const [ui] = toUiMessages([{ id: 'u1', role: 'user', content: 'hi' }, ...stored]).slice(1);
    expect(ui?.id).toBe('a1');
    expect(ui?.metadata?.storedIds).toEqual(['a1', 'a1.1', 'a1.2']);
    expect(ui?.metadata?.context?.totalTokens).toBe(5);
    const text = ui?.parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
    expect(text).toBe('Reading guidance.md.It says: Guide.');
    expect(ui?.parts.find((part) => part.type === 'dynamic-tool')).toMatchObject({
      toolName: 'read_file',
      state: 'output-available',
      output: '1\t# Guide',
    });
  });

  it('marks curated messages with their curation state', () => {
    const ui = toUiMessages([{ id: 'u1', role: 'user', content: 'hi' }], {
      curation: new Map([['u1', { state: 'excluded' as const, by: 'user' as const }]]),
    });
    expect(ui[0]?.metadata?.memory).toEqual({ state: 'excluded', by: 'user' });
  });
});
