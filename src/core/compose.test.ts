import { describe, expect, it } from 'vitest';
import type { ContextBlock } from './block.ts';
import { compose, composeWithHistory, forgetTaggedRun, layerOf, taggedHistoryRun } from './compose.ts';
import { CtxloomError } from './errors.ts';
import { createLayerRegistry } from './layers.ts';
import type { Message } from './message.ts';

const history: Message[] = [
  { id: 'u1', role: 'user', content: 'What is Raft?' },
  { id: 'a1', role: 'assistant', content: 'A consensus algorithm.' },
];
const contexts = {
  todo__context: 'todo',
  compression__context: 'summary',
  knowledge__context: 'knowledge',
  experience__context: 'experience',
  framework__context: 'framework',
};

describe('compose', () => {
  it('orders layers as seed 000 says: system, framework, experience, knowledge, todo, compression, history, query', () => {
    const messages = compose({
      systemPrompt: 'sys',
      contexts,
      history,
      query: { id: 'u2', role: 'user', content: 'Why?' },
    });
    expect(messages.map(layerOf)).toEqual([
      'system',
      'framework__context',
      'experience__context',
      'knowledge__context',
      'todo__context',
      'compression__context',
      'history',
      'history',
      'query',
    ]);
    expect(messages.slice(0, 6).every((message) => message.role === 'system')).toBe(true);
  });

  it('adds the query exactly once when the history already ends with it', () => {
    const query: Message = { id: 'u2', role: 'user', content: 'Why?' };
    const messages = compose({ history: [...history, query], query });
    expect(messages.filter((message) => message.id === 'u2')).toHaveLength(1);
    expect(messages.at(-1)?.id).toBe('u2');
  });

  it('gives a string query a deterministic id', () => {
    const first = compose({ query: 'hello' });
    const second = compose({ query: 'hello' });
    expect(first[0]?.id).toBe(second[0]?.id);
    expect(first[0]?.id.startsWith('query:')).toBe(true);
  });

  it('takes no parameter that could carry raw state', () => {
    const state = { messages: history, todo: [] };
    // @ts-expect-error the composer has no `state` input: it renders prepared layers only
    compose({ systemPrompt: 'sys', state });
    // @ts-expect-error nor a blackboard under another name
    compose({ blackboard: state });
    expect(Object.keys(compose({ systemPrompt: 'x' })[0] ?? {})).not.toContain('state');
  });

  it('injects only framework__context of the shared layers when sharing is off', () => {
    const messages = compose({
      systemPrompt: 'sys',
      contexts,
      history,
      policy: { enableShareContext: false },
    });
    expect(messages.map(layerOf)).toEqual(['system', 'framework__context', 'history', 'history']);
  });

  it('refuses a context key that does not end in __context', () => {
    const call = () => compose({ contexts: { todo: 'x' } as never });
    expect(call).toThrow(CtxloomError);
    expect(call).toThrow(/must end in "__context"/);
  });

  it('refuses an unregistered __context key', () => {
    expect(() => compose({ contexts: { glossary__context: 'x' } })).toThrow(
      /unknown layer "glossary__context"/,
    );
  });

  it('renders a registered custom layer at its position', () => {
    const layers = createLayerRegistry();
    layers.register({ name: 'glossary__context', title: 'Glossary' }, { after: 'framework__context' });
    const messages = compose({
      systemPrompt: 's',
      contexts: { glossary__context: 'p', knowledge__context: 'k' },
      policy: { layers },
    });
    expect(messages.map(layerOf)).toEqual(['system', 'glossary__context', 'knowledge__context']);
  });

  it('merges stable and volatile system layers into one message each, with titles, when asked', () => {
    const messages = compose({ systemPrompt: 'sys', contexts, history, policy: { merge: true } });
    expect(messages[0]?.role).toBe('system');
    expect(messages[1]?.role).toBe('system');
    expect(messages[2]?.role).toBe('user');
    expect(messages[1]?.content).toContain('## Knowledge\nknowledge');
    // The stable layers stay one message of their own, so a cache breakpoint still fits after them.
    expect(messages[0]?.metadata?.layers).toEqual(['system', 'framework__context']);
    expect(messages[1]?.metadata?.layers).toEqual([
      'experience__context',
      'knowledge__context',
      'todo__context',
      'compression__context',
    ]);
  });

  it('puts volatile layers after the history under the cache-friendly policy', () => {
    const messages = compose({
      systemPrompt: 'sys',
      contexts,
      history,
      query: 'q',
      policy: { order: 'cache-friendly' },
    });
    expect(messages.map(layerOf)).toEqual([
      'system',
      'framework__context',
      'history',
      'history',
      'experience__context',
      'knowledge__context',
      'todo__context',
      'compression__context',
      'query',
    ]);
  });

  it('tells where the history copies sit and whether any carries a merged layers list (decision 067, item 10)', () => {
    for (const order of ['default', 'cache-friendly'] as const) {
      for (const merge of [false, true]) {
        const composed = composeWithHistory({
          systemPrompt: 'sys',
          contexts,
          history,
          query: 'Why?',
          steps: [{ id: 's1', role: 'assistant', content: 'step' }],
          policy: { order, merge },
        });
        expect(composed.messages).toEqual(
          compose({
            systemPrompt: 'sys',
            contexts,
            history,
            query: 'Why?',
            steps: [{ id: 's1', role: 'assistant', content: 'step' }],
            policy: { order, merge },
          }),
        );
        const { historyStart, historyLength } = composed;
        expect(historyLength).toBe(history.length);
        expect(composed.messages.slice(historyStart, historyStart + historyLength).map((m) => m.id)).toEqual([
          'u1',
          'a1',
        ]);
        expect(composed.messages.slice(historyStart, historyStart + historyLength).map(layerOf)).toEqual([
          'history',
          'history',
        ]);
        expect(layerOf(composed.messages[historyStart - 1] as Message)).not.toBe('history');
        expect(composed.historyPlain).toBe(true);
      }
    }
    const merged: Message = { id: 'm1', role: 'user', content: 'x', metadata: { layers: ['system'] } };
    expect(composeWithHistory({ history: [...history, merged] }).historyPlain).toBe(false);
    expect(
      composeWithHistory({ history: [...history, { ...merged, id: 'm2', metadata: { note: 1 } }] })
        .historyPlain,
    ).toBe(true);
  });

  it('carries where merged copies sit over to the next run, by position (decision 067, fifth amendment)', () => {
    forgetTaggedRun();
    const messages: Message[] = Array.from({ length: 6 }, (_, index) => ({
      id: `m${index}`,
      role: 'user',
      content: `message ${index}`,
      ...(index === 2 ? { metadata: { layers: ['system'] } } : {}),
    }));
    const blocks = messages.map((message) => ({ id: message.id }) as unknown as ContextBlock);
    const first = taggedHistoryRun(blocks.slice(0, 4), 0, 4, (index) => messages[index] as Message);
    expect(first.plain).toBe(false);
    expect(first.carried.run.mergedAt).toEqual([2]);
    // The next run starts one block later and carries the merged copy over: still not plain.
    const second = taggedHistoryRun(blocks.slice(1, 6), 0, 5, (index) => messages[index + 1] as Message);
    expect(second.carried.same).toBe(3);
    expect(second.plain).toBe(false);
    expect(second.carried.run.mergedAt).toEqual([1]);
    // A run from after the merged copy is plain again.
    const third = taggedHistoryRun(blocks.slice(3, 6), 0, 3, (index) => messages[index + 3] as Message);
    expect(third.carried.same).toBe(3);
    expect(third.plain).toBe(true);
    expect(third.carried.run.mergedAt).toEqual([]);
    forgetTaggedRun();
  });
});
