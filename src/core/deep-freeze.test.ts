import { describe, expect, it } from 'vitest';
import { createCharCounter } from '../testing/index.ts';
import { deepFreeze, frozenMessageMemo, isFrozenMessage } from './deep-freeze.ts';
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

  it('leaves a typed array as it is (it cannot be frozen) and freezes the rest around it', () => {
    const record = {
      bytes: new Uint8Array([1, 2, 3]),
      view: new DataView(new ArrayBuffer(4)),
      rest: { a: 1 },
    };
    expect(() => deepFreeze(record)).not.toThrow();
    expect(Object.isFrozen(record)).toBe(true);
    expect(Object.isFrozen(record.rest)).toBe(true);
    expect(Object.isFrozen(record.bytes)).toBe(false);
  });

  it('keeps a memo value per counter for frozen messages only', () => {
    const memo = frozenMessageMemo<number>();
    const counter = createCharCounter();
    const other = createCharCounter();
    const frozen = Object.freeze<Message>({ id: 'u1', role: 'user', content: 'hi' });
    const open: Message = { id: 'u2', role: 'user', content: 'hi' };
    memo.set(counter, frozen, 1);
    memo.set(counter, open, 2);
    expect(memo.get(counter, frozen)).toBe(1);
    expect(memo.get(other, frozen)).toBeUndefined();
    expect(memo.get(counter, open)).toBeUndefined();
  });
});
