import { describe, expect, it } from 'vitest';
import { deepFreeze } from '../core/deep-freeze.ts';
import { createTokenCounter, type Message, NO_MESSAGE_OVERHEAD } from '../core/index.ts';
import { parseContextConfig } from '../workspace/index.ts';
import { recallTokens } from './compressed-forms.ts';

const config = parseContextConfig(JSON.stringify({ budget: { window: 100_000 } }));

describe('recallTokens', () => {
  it('measures a stored (frozen) message once per counter, a message that may change at every call', () => {
    const counted: string[] = [];
    const counter = createTokenCounter({
      name: 'recording',
      exact: true,
      overhead: NO_MESSAGE_OVERHEAD,
      countText: (text) => {
        counted.push(text);
        return text.length;
      },
    });
    const stored: Message[] = [
      { id: 'u1', role: 'user', content: 'What is a term?' },
      { id: 'a1', role: 'assistant', content: [{ type: 'text', text: 'A logical clock.' }] },
    ];
    for (const message of stored) deepFreeze(message);
    const live: Message = { id: 'u2', role: 'user', content: 'And a quorum?' };
    // Frozen, but its parts are not: they may change, so it is measured each time too.
    const shallow = Object.freeze<Message>({
      id: 'a2',
      role: 'assistant',
      content: [{ type: 'text', text: 'A majority.' }],
    });
    const conversation = [...stored, live, shallow];
    const input = { ratio: 0.5, config, conversation, cutCount: 4, summary: '', todo: [], counter };
    const first = recallTokens(input);
    expect(counted).toContain('What is a term?');
    counted.length = 0;
    expect(recallTokens(input)).toBe(first);
    // The next call counts only the message that is not frozen.
    expect(counted).toEqual(['user', 'And a quorum?', 'assistant', 'A majority.']);
  });
});
