import { describe, expect, it } from 'vitest';
import type { Message } from '../../core/index.ts';
import { createO200kCounter } from '../../tokenizers/index.ts';
import { applyCuration } from './apply-curation.ts';
import type { CurationStatus } from './curation-event.ts';

const uuid = '0b6a4bd1-2f0e-4c4e-9a53-6f1d2f7d9c11';
const messages: Message[] = [
  { id: 'a', role: 'user', content: '你好' },
  { id: uuid, role: 'user', content: '和学习无关的闲聊，很长很长' },
];
const excluded: CurationStatus = { state: 'excluded', by: 'user', eventId: 'e1' };

describe('applyCuration', () => {
  it('names a dismissed message by its position, not its id', () => {
    const [, placeholder] = applyCuration(messages, new Map([[uuid, excluded]]), 'zh');
    expect(placeholder?.content).toBe('[用户消息 #2 — 用户已排除]');
    const [, english] = applyCuration(messages, new Map([[uuid, excluded]]), 'en');
    expect(english?.content).toBe('[user message #2 — excluded by the user]');
  });

  it('keeps a placeholder short: a few tokens, not the ~36 a UUID costs', () => {
    const counter = createO200kCounter();
    const [, placeholder] = applyCuration(messages, new Map([[uuid, excluded]]), 'zh');
    const tokens = counter.countText(String(placeholder?.content));
    expect(tokens).toBeLessThanOrEqual(12);
    expect(counter.countText(`[用户消息 ${uuid} — 用户已排除]`)).toBeGreaterThan(tokens + 15);
  });
});
