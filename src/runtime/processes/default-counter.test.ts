import { describe, expect, it } from 'vitest';
import { createTokenCounter, isTextCached } from '../../core/tokens.ts';
import { createO200kCounter, getTokenCounter } from '../../tokenizers/index.ts';
import { defaultCounter } from './default-counter.ts';

describe('defaultCounter', () => {
  it('counts with a cache, so an agent call does not tokenise the whole history again', () => {
    expect(defaultCounter()).toBe(getTokenCounter('gpt-4o'));
    const exact = createO200kCounter();
    const counter = defaultCounter(exact);
    expect(isTextCached(counter)).toBe(true);
    // One cache per counter, shared by every process given it.
    expect(defaultCounter(exact)).toBe(counter);
    const text = '复制状态机与共识：每个节点按同样的顺序执行同样的命令。';
    expect(counter.countText(text)).toBe(exact.countText(text));
    let counted = 0;
    const spy = createTokenCounter({
      name: 'spy',
      exact: true,
      countText: (value) => {
        counted++;
        return value.length;
      },
    });
    const history = Array.from({ length: 50 }, (_, index) => ({
      id: `m${index}`,
      role: 'user' as const,
      content: `message ${index} of a long session`,
    }));
    defaultCounter(spy).countMessages(history);
    const once = counted;
    expect(once).toBeGreaterThanOrEqual(50);
    for (let call = 0; call < 9; call++) defaultCounter(spy).countMessages(history);
    expect(counted).toBe(once);
  });
});
