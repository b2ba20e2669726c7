import { describe, expect, it } from 'vitest';
import { deepFreeze, isFrozenMessage } from './deep-freeze.ts';
import type { Message } from './message.ts';

describe('deepFreeze', () => {
  it('freezes every object under the value, however deep (no recursion)', () => {
    let input: Record<string, unknown> = { leaf: [1, 2] };
    const root = input;
    for (let depth = 0; depth < 200_000; depth++) {
      const child: Record<string, unknown> = {};
      input.next = child;
      input = child;
    }
    const message: Message = {
      id: 'a1',
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'write', input: root }],
    };
    deepFreeze(message);
    expect(isFrozenMessage(message)).toBe(true);
    expect(Object.isFrozen(input)).toBe(true);
    expect(Object.isFrozen(root.leaf)).toBe(true);
  });

  it('tells a message frozen whole from one whose parts may change', () => {
    const parts: Message = Object.freeze<Message>({
      id: 'u1',
      role: 'user',
      content: [{ type: 'text', text: 'hi' }],
    });
    expect(isFrozenMessage(parts)).toBe(false);
    expect(isFrozenMessage(Object.freeze<Message>({ id: 'u2', role: 'user', content: 'hi' }))).toBe(true);
    expect(isFrozenMessage({ id: 'u3', role: 'user', content: 'hi' })).toBe(false);
  });
});
