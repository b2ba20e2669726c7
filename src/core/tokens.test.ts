import { describe, expect, it } from 'vitest';
import {
  countMessage,
  createTokenCounter,
  isTextCached,
  NO_MESSAGE_OVERHEAD,
  OPENAI_MESSAGE_OVERHEAD,
  withSharedTokenCache,
  withTokenCache,
} from './tokens.ts';

function spyCounter() {
  const seen: string[] = [];
  const counter = createTokenCounter({
    name: 'spy',
    exact: true,
    countText: (text) => {
      seen.push(text);
      return text.length;
    },
    overhead: NO_MESSAGE_OVERHEAD,
  });
  return { counter, seen };
}

describe('withTokenCache', () => {
  it('tokenises each distinct text once, so a recount after one new message counts only that message', () => {
    const { counter, seen } = spyCounter();
    const cached = withTokenCache(counter, { minLength: 0 });
    const history = Array.from({ length: 20 }, (_, index) => ({
      id: `m${index}`,
      role: 'user' as const,
      content: `message number ${index} with some text`,
    }));
    cached.countMessages(history);
    const before = seen.filter((text) => text.startsWith('message')).length;
    history.push({ id: 'm20', role: 'user', content: 'message number 20 is new' });
    cached.countMessages(history);
    const after = seen.filter((text) => text.startsWith('message')).length;
    expect(before).toBe(20);
    expect(after - before).toBe(1);
    expect(cached.stats().hits).toBeGreaterThanOrEqual(20);
  });

  it('returns the same counts as the counter it wraps', () => {
    const { counter } = spyCounter();
    const cached = withTokenCache(counter);
    for (const text of ['', 'a', 'hello world, this is long enough', '中文文本也一样可以缓存的内容']) {
      expect(cached.countText(text)).toBe(counter.countText(text));
      expect(cached.countText(text)).toBe(counter.countText(text));
    }
  });

  it('evicts the oldest entries past maxEntries', () => {
    const { counter } = spyCounter();
    const cached = withTokenCache(counter, { maxEntries: 2, minLength: 0 });
    cached.countText('one');
    cached.countText('two');
    cached.countText('three');
    expect(cached.stats().entries).toBe(2);
  });

  it('rejects a non-positive cache size', () => {
    expect(() => withTokenCache(spyCounter().counter, { maxEntries: 0 })).toThrow(/maxEntries/);
  });
});

describe('withSharedTokenCache', () => {
  it('gives every caller of one counter the same cache, so a text is tokenised once among them', () => {
    const { counter, seen } = spyCounter();
    const first = withSharedTokenCache(counter);
    const second = withSharedTokenCache(counter);
    expect(second).toBe(first);
    expect(isTextCached(first)).toBe(true);
    const text = 'a message long enough for the cache';
    expect(first.countText(text)).toBe(text.length);
    expect(second.countMessages([{ id: 'm', role: 'user', content: text }])).toBe(
      counter.countMessages([{ id: 'm', role: 'user', content: text }]),
    );
    expect(seen.filter((seenText) => seenText === text)).toHaveLength(2);
    // Another counter gets its own cache.
    expect(withSharedTokenCache(spyCounter().counter)).not.toBe(first);
  });

  it('keeps a counter that caches already, or whose messages are not a plain sum of its texts', () => {
    const cached = withTokenCache(spyCounter().counter);
    expect(withSharedTokenCache(cached)).toBe(cached);
    const { counter } = spyCounter();
    const own = { ...counter, countMessages: () => 42 };
    expect(withSharedTokenCache(own)).toBe(own);
  });
});

describe('countMessages', () => {
  it('adds the OpenAI per-message, per-name and reply-priming overhead', () => {
    const counter = createTokenCounter({
      name: 'c',
      exact: true,
      countText: (text) => text.length,
      overhead: OPENAI_MESSAGE_OVERHEAD,
    });
    const total = counter.countMessages([{ id: '1', role: 'user', content: 'abc', name: 'x' }]);
    // 3 (priming) + 3 (message) + 4 ('user') + 3 ('abc') + 1 (name) + 1 ('x')
    expect(total).toBe(15);
    expect(counter.countMessages([])).toBe(0);
  });
});

describe('countMessage', () => {
  it('is countMessages of the one message minus the request overhead, for built and copied counters', () => {
    const counter = createTokenCounter({
      name: 'c',
      exact: true,
      countText: (text) => text.length,
      overhead: OPENAI_MESSAGE_OVERHEAD,
    });
    const message = { id: '1', role: 'user' as const, content: 'abc', name: 'x' };
    expect(countMessage(counter, message)).toBe(12);
    expect(countMessage(withTokenCache(counter), message)).toBe(12);
    // A copy with its own framing is asked through its own countMessages, never bypassed.
    const framed = { ...counter, countMessages: () => 100 };
    expect(countMessage(framed, message)).toBe(100 - OPENAI_MESSAGE_OVERHEAD.perRequest);
  });
});
