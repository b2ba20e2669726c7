import { describe, expect, it } from 'vitest';
import { compose, layerOf } from './compose.ts';
import { CtxloomError } from './errors.ts';
import { assertContextKey, createLayerRegistry, DEFAULT_LAYERS } from './layers.ts';

describe('layer registry', () => {
  it("holds seed 000's eight layers in its order, with the profile and a long session's recall", () => {
    expect(DEFAULT_LAYERS.map((layer) => layer.name)).toEqual([
      'system',
      'framework__context',
      'profile__context',
      'experience__context',
      'knowledge__context',
      'todo__context',
      'compression__context',
      'recall__context',
      'history',
      'query',
    ]);
    const registry = createLayerRegistry();
    expect(registry.get('compression__context').lifecycle).toBe('persisted');
    expect(registry.get('knowledge__context').lifecycle).toBe('runtime');
    expect(registry.get('system').shared).toBe(false);
    expect(registry.get('framework__context').compactable).toBe(false);
    // The profile is stable (sent before the history) but may be compacted, as knowledge is.
    expect(registry.get('profile__context')).toMatchObject({ stable: true, compactable: true, shared: true });
  });

  it('marks named default layers stable, so the cache-friendly order sends them before the history', () => {
    const history = [{ id: 'h1', role: 'user' as const, content: 'earlier' }];
    const contexts = { todo__context: 'tasks', knowledge__context: 'facts' };
    const order = (layers = createLayerRegistry()) =>
      compose({
        systemPrompt: 'sys',
        contexts,
        history,
        query: 'now?',
        policy: { order: 'cache-friendly', layers },
      }).map((message) => layerOf(message));
    expect(order()).toEqual(['system', 'history', 'knowledge__context', 'todo__context', 'query']);
    const registry = createLayerRegistry([], { stable: ['todo__context'] });
    expect(registry.get('todo__context').stable).toBe(true);
    expect(DEFAULT_LAYERS.find((layer) => layer.name === 'todo__context')?.stable).toBe(false);
    expect(order(registry)).toEqual(['system', 'todo__context', 'history', 'knowledge__context', 'query']);
    expect(() => createLayerRegistry([], { stable: ['todos__context'] })).toThrow(CtxloomError);
  });

  it('registers a custom layer before, after or at an index', () => {
    const registry = createLayerRegistry();
    registry.register({ name: 'a__context' }, { before: 'knowledge__context' });
    registry.register({ name: 'b__context' }, { after: 'todo__context' });
    registry.register({ name: 'c__context' }, { index: 1 });
    const names = registry.list().map((layer) => layer.name);
    expect(names.indexOf('a__context')).toBe(names.indexOf('knowledge__context') - 1);
    expect(names.indexOf('b__context')).toBe(names.indexOf('todo__context') + 1);
    expect(names[1]).toBe('c__context');
  });

  it('refuses keys without the __context suffix, duplicates and positions outside the context band', () => {
    const registry = createLayerRegistry();
    expect(() => registry.register({ name: 'profile' })).toThrow(CtxloomError);
    expect(() => registry.register({ name: 'todo__context' })).toThrow(/already registered/);
    expect(() => registry.register({ name: 'x__context' }, { after: 'query' })).toThrow(/before "history"/);
    expect(() => registry.register({ name: 'y__context' }, { index: 0 })).toThrow(/after "system"/);
    expect(() => assertContextKey('__context')).toThrow(CtxloomError);
    expect(() => registry.get('nope')).toThrow(/unknown layer "nope"/);
  });
});
